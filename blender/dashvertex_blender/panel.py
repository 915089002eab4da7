# SPDX-License-Identifier: GPL-3.0-or-later
"""The "Dash" sidebar panel of the 3D viewport (every mode, Weight Paint included) and
the scene settings it edits: the influence limit, the manifest, the last check."""

import json

import bpy
from bpy.props import BoolProperty, IntProperty, StringProperty

from . import runtime


class DASH_PT_weights(bpy.types.Panel):
    """Dash: check, limit and export the active mesh's bone weights"""

    bl_label = "Dash Weights"
    bl_idname = "DASH_PT_weights"
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Dash"

    def draw(self, context):
        """K, the manifest, the three actions and the last check's counts."""
        layout = self.layout
        scene = context.scene
        if not runtime.available():
            layout.label(text="dashvertex package not found", icon="ERROR")
            return
        col = layout.column(align=True)
        col.prop(scene, "dash_max_influences")
        col.label(text="Manifest:")
        col.prop(scene, "dash_manifest_path", text="")
        col.prop(scene, "dash_fit")
        row = layout.row(align=True)
        op = row.operator("dash.check_weights", text="Check", icon="VIEWZOOM")
        op.max_influences = scene.dash_max_influences
        op = row.operator("dash.limit_weights", text="Limit", icon="MOD_VERTEX_WEIGHT")
        op.max_influences = scene.dash_max_influences
        op.manifest_path = scene.dash_manifest_path
        op.fit = scene.dash_fit
        op = layout.operator("export_mesh.dashvertex", text="Export DashVertex…", icon="EXPORT")
        op.max_influences = scene.dash_max_influences
        op.manifest_path = scene.dash_manifest_path
        self.draw_last_check(layout, scene, context.active_object)

    @staticmethod
    def draw_last_check(layout, scene, obj):
        """The counts of the last check (of any object: its name is shown)."""
        if not scene.dash_last_check:
            return
        try:
            last = json.loads(scene.dash_last_check)
        except ValueError:
            return
        box = layout.box()
        stale = obj is None or obj.name != last.get("object")
        box.label(text=f"Last check: {last.get('object')} (K = {last.get('max_influences')})",
                  icon="INFO" if not stale else "TIME")
        counts = last.get("counts", {})
        if not any(counts.values()):
            box.label(text="no faults", icon="CHECKMARK")
        for code, n in counts.items():
            if n:
                box.label(text=f"{code}: {n}")
        groups = last.get("non_bone_groups") or []
        if groups:
            box.label(text="non-bone: " + ", ".join(groups[:4]) + (" …" if len(groups) > 4 else ""))
        if last.get("selected"):
            box.label(text=f"{last['selected']} vertices selected", icon="RESTRICT_SELECT_OFF")


PROPERTIES = {
    "dash_max_influences": IntProperty(name="Max Influences", default=4, min=1, max=32,
                                       description="Bone influences per vertex for check, limit and export"),
    "dash_manifest_path": StringProperty(name="Manifest", subtype="FILE_PATH", default="",
                                         description="Bone manifest: stable bone indices across exports"),
    "dash_fit": BoolProperty(name="Fit to Animation", default=False,
                             description="Limit chooses the bones and weights that move each vertex "
                                         "least over the armature's action, not the heaviest"),
    "dash_last_check": StringProperty(name="Last Check", default="", options={"HIDDEN"}),
}


def register_properties():
    """Add the panel's settings to `bpy.types.Scene`."""
    for name, prop in PROPERTIES.items():
        setattr(bpy.types.Scene, name, prop)


def unregister_properties():
    """Remove the panel's settings from `bpy.types.Scene`."""
    for name in PROPERTIES:
        if hasattr(bpy.types.Scene, name):
            delattr(bpy.types.Scene, name)
