"""Timings of the add-on beside Blender's own tools on one 100 k-vertex, 8-influence mesh,
in one Blender run (each figure the best of three), as ratios:

    blender -b --factory-startup --python blender/tests/bench.py

check_weights and limit_weights against Limit Total (4) + Normalize All; the DashVertex
export against the glTF exporter (GLB, every influence).
"""

import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import bpy  # noqa: E402

import dashvertex_blender  # noqa: E402
from dashvertex_blender import group_weights  # noqa: E402
import rig  # noqa: E402


def best(fn, setup=None, runs=3):
    """Least wall time of `fn` over `runs` runs, `setup` (untimed) before each."""
    times = []
    for _ in range(runs):
        if setup:
            setup()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    """Build the mesh, time everything, print one line per figure."""
    dashvertex_blender.register()
    rig.clear_scene()
    arm = rig.make_armature(bones=24)
    obj = rig.make_big_mesh(arm)
    pristine = obj.data.copy()
    n = len(obj.data.vertices)

    def fresh():
        old = obj.data
        obj.data = pristine.copy()
        bpy.data.meshes.remove(old)
        bpy.context.view_layer.objects.active = obj
        bpy.context.evaluated_depsgraph_get()  # evaluated, as in a session with a viewport

    def blender_limit():
        bpy.ops.object.vertex_group_limit_total(group_select_mode="ALL", limit=4)
        bpy.ops.object.vertex_group_normalize_all(group_select_mode="ALL", lock_active=False)

    folder = tempfile.mkdtemp(prefix="dash-bench-")
    gltf_path = os.path.join(folder, "big.glb")

    def gltf_export():
        bpy.ops.export_scene.gltf(filepath=gltf_path, export_format="GLB", use_selection=True,
                                  export_all_influences=True, export_animations=False)

    figures = {
        "Limit Total + Normalize All": best(blender_limit, fresh),
        "read weights (geometry nodes)": best(lambda: group_weights.read_nodes(obj), fresh),
        "read weights (vertex loop)": best(lambda: group_weights.read_loop(obj), fresh, runs=1),
        "dash.check_weights": best(lambda: bpy.ops.dash.check_weights(max_influences=4), fresh),
        "dash.limit_weights": best(lambda: bpy.ops.dash.limit_weights(max_influences=4), fresh),
    }
    fresh()
    obj.select_set(True)
    arm.select_set(True)
    figures["glTF export (all influences)"] = best(gltf_export)
    if hasattr(dashvertex_blender.runtime.dashvertex(), "reduce_file"):
        out = os.path.join(folder, "big.json")
        figures["export_mesh.dashvertex (JSON)"] = best(
            lambda: bpy.ops.export_mesh.dashvertex(filepath=out, max_influences=4))
    base = figures["Limit Total + Normalize All"]
    print(f"bench: {n} vertices, 8 influences, 24 bones + 1 non-bone group")
    for name, t in figures.items():
        print(f"bench: {name:32s} {t * 1000:9.1f} ms  {t / base:5.2f}x Limit Total + Normalize All")
    if "export_mesh.dashvertex (JSON)" in figures:
        r = figures["export_mesh.dashvertex (JSON)"] / figures["glTF export (all influences)"]
        print(f"bench: export / glTF exporter = {r:.2f}")


main()
