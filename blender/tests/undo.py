"""limit_weights under Blender's undo, which only an interactive Blender has (in
``-b`` there is no undo stack): run under a virtual display,

    xvfb-run -a blender --factory-startup --python blender/tests/undo.py

``dashvertex`` must be importable (as for run.py). On the geometry-nodes write and on
the vertex-loop write (a mesh with shape keys), one undo after the operator must give
back every vertex-group entry exactly, and redo the limited ones. Prints one ``undo:``
line per case and exits 1 when one fails.
"""

import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import bpy  # noqa: E402

import dashvertex_blender  # noqa: E402
from dashvertex_blender import limiting  # noqa: E402
import rig  # noqa: E402


def entries():
    """Every vertex's sorted ``(group name, weight)`` entries of the mesh "Body" (looked
    up again each time: undo replaces the data blocks)."""
    obj = bpy.data.objects["Body"]
    names = [g.name for g in obj.vertex_groups]
    return [sorted((names[g.group], g.weight) for g in v.groups) for v in obj.data.vertices]


def case(shape_keys):
    """Limit a fresh rig as a user would (an undo step of its own), undo, redo; returns
    the failures (empty when all held)."""
    rig.clear_scene()
    obj = rig.make_mesh(rig.make_armature(bones=12), vertices_side=12, influences=8,
                        unweighted=(5, 77))
    if shape_keys:
        obj.shape_key_add(name="Basis")
    bpy.ops.ed.undo_push(message="rig")
    before = entries()
    paths = []
    write = limiting.write_group_weights

    def spy(*args, **kwargs):
        result = write(*args, **kwargs)
        paths.append(result[2])
        return result

    limiting.write_group_weights = spy
    try:
        # the second positional argument: push an undo step, as a click does
        done = bpy.ops.dash.limit_weights("EXEC_DEFAULT", True, max_influences=4)
    finally:
        limiting.write_group_weights = write
    limited = entries()
    bpy.ops.ed.undo()
    undone = entries()
    bpy.ops.ed.redo()
    redone = entries()
    expect = "loop" if shape_keys else "nodes"
    failures = [what for what, held in (
        (f"finished ({done})", done == {"FINISHED"}),
        (f"written by {expect} ({paths})", paths == [expect]),
        ("changed the weights", limited != before),
        ("undo gave the weights back", undone == before),
        ("redo limited them again", redone == limited),
        ("no modifier left", [m.name for m in bpy.data.objects["Body"].modifiers] == ["Armature"]),
    ) if not held]
    print(f"undo: {expect} write: " + ("ok" if not failures else "FAILED: " + "; ".join(failures)))
    return failures


def run():
    """Both cases in the window's 3D view, then exit with the outcome."""
    failed = True
    try:
        dashvertex_blender.register()
        window = bpy.context.window_manager.windows[0]
        area = next(a for a in window.screen.areas if a.type == "VIEW_3D")
        region = next(r for r in area.regions if r.type == "WINDOW")
        with bpy.context.temp_override(window=window, screen=window.screen, area=area, region=region):
            failed = bool(case(False) + case(True))
    except Exception:
        traceback.print_exc()
    sys.stdout.flush()
    os._exit(1 if failed else 0)


if bpy.app.background:
    print("undo: needs an interactive Blender (no undo stack with -b)")
    sys.exit(1)
bpy.app.timers.register(run, first_interval=1.0)
