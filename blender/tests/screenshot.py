"""Render the "Dash" sidebar panel after a check, in Weight Paint mode, to
blender/panel.png (Blender with a window, e.g. under Xvfb; a .blend on the command line
keeps the splash screen away):

    blender -b --factory-startup --python-expr "import bpy; bpy.ops.wm.save_as_mainfile(filepath='/tmp/empty.blend')"
    xvfb-run -a -s "-screen 0 1400x900x24" blender --factory-startup --enable-event-simulate \
        /tmp/empty.blend --python blender/tests/screenshot.py

Blender 3.4's Python API cannot choose a sidebar tab, so a simulated click opens "Dash".
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import bpy  # noqa: E402

import dashvertex_blender  # noqa: E402
import rig  # noqa: E402

OUT = os.path.join(os.path.dirname(HERE), "panel.png")
#: Pixels from the sidebar's top to the middle of its fourth tab, "Dash" (after Item,
#: Tool and View in Weight Paint mode; UI scale 1).
TAB_FROM_TOP = 173


def scene():
    """The test rig, its mesh in Weight Paint mode, checked with K = 4."""
    rig.clear_scene()
    arm = rig.make_armature(bones=12)
    obj = rig.make_mesh(arm, vertices_side=16, influences=8, unweighted=(5, 77))
    bpy.context.view_layer.objects.active = obj
    bpy.context.scene.dash_manifest_path = "//rig.manifest.json"
    bpy.ops.dash.check_weights(max_influences=4)
    bpy.ops.object.mode_set(mode="WEIGHT_PAINT")
    obj.data.use_paint_mask_vertex = True
    obj.vertex_groups.active_index = obj.vertex_groups["bone_01"].index
    return obj


def view3d():
    """The window, area and region of the 3D viewport."""
    window = bpy.context.window_manager.windows[0]
    for area in window.screen.areas:
        if area.type == "VIEW_3D":
            region = next(r for r in area.regions if r.type == "WINDOW")
            return window, area, region
    raise RuntimeError("no 3D viewport")


def shoot():
    """Frame the mesh, open the sidebar, save the area's screenshot, quit."""
    window, area, region = view3d()
    with bpy.context.temp_override(window=window, area=area, region=region):
        area.spaces.active.show_region_ui = True
        area.spaces.active.overlay.show_overlays = True
        view = area.spaces.active.region_3d
        view.view_location = (0.3, 0.0, 0.2)
        view.view_distance = 6.5
    bpy.app.timers.register(click_tab, first_interval=1.0)


def click_tab():
    """Click the sidebar's "Dash" tab."""
    window, area, _ = view3d()
    sidebar = next(r for r in area.regions if r.type == "UI")
    x = sidebar.x + sidebar.width - 10
    y = sidebar.y + sidebar.height - TAB_FROM_TOP
    window.event_simulate(type="MOUSEMOVE", value="NOTHING", x=x, y=y)
    window.event_simulate(type="LEFTMOUSE", value="PRESS", x=x, y=y)
    window.event_simulate(type="LEFTMOUSE", value="RELEASE", x=x, y=y)
    bpy.app.timers.register(save, first_interval=1.0)


def save():
    """Write the screenshot and quit."""
    window, area, region = view3d()
    with bpy.context.temp_override(window=window, area=area, region=region):
        bpy.ops.screen.screenshot_area(filepath=OUT)
    print("wrote", OUT)
    bpy.ops.wm.quit_blender()


def start():
    """Timer callback once the window exists."""
    dashvertex_blender.register()
    obj = scene()
    obj.select_set(True)
    shoot()


bpy.app.timers.register(start, first_interval=0.5)
