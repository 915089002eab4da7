# SPDX-License-Identifier: GPL-3.0-or-later
"""The add-on's operators: ``dash.check_weights``, ``dash.limit_weights`` and
``export_mesh.dashvertex`` (also in File ▸ Export)."""

import json
import os

import bpy
from bpy.props import BoolProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from . import checking, exporter_view, exporting, limiting, runtime


def _mesh_poll(context):
    """True when the active object is a mesh."""
    obj = context.active_object
    return obj is not None and obj.type == "MESH"


def _dash_failure(op, exc):
    """Report `exc` (a dash or add-on error) on operator `op`; returns CANCELLED."""
    code = getattr(exc, "code", None)
    op.report({"ERROR"}, f"{code}: {exc}" if code else str(exc))
    return {"CANCELLED"}


def _failures():
    """The exceptions the operators turn into an error report."""
    errors = [runtime.MissingPackage, exporter_view.NotSkinned, limiting.NoAnimation, OSError]
    try:
        errors.append(runtime.dashvertex().DashError)
    except runtime.MissingPackage:
        pass
    return tuple(errors)


class DASH_OT_check_weights(bpy.types.Operator):
    """Check the active mesh's bone weights with dash as the glTF exporter reads them,
    and select the vertices with more bone influences than the limit or none"""

    bl_idname = "dash.check_weights"
    bl_label = "Check Weights"
    bl_options = {"REGISTER", "UNDO"}

    max_influences: IntProperty(name="Max Influences", default=4, min=1, max=32,
                                description="Bone influences a vertex may have")

    @classmethod
    def poll(cls, context):
        """A mesh is active."""
        return _mesh_poll(context)

    def execute(self, context):
        """Run the check, store its counts on the scene, select the vertices at fault."""
        obj = context.active_object
        try:
            with runtime.object_mode(obj):
                summary = checking.summarize(obj, self.max_influences)
                runtime.select_vertices(obj, summary.selected)
        except _failures() as e:
            return _dash_failure(self, e)
        runtime.flush_edit_selection(obj)
        if obj.mode == "WEIGHT_PAINT":
            obj.data.use_paint_mask_vertex = True
        scene = context.scene
        scene.dash_last_check = json.dumps({"object": obj.name, "max_influences": self.max_influences,
                                            "counts": summary.counts,
                                            "non_bone_groups": summary.non_bone_groups,
                                            "selected": int(summary.selected.sum())})
        level = "INFO" if summary.report.valid and not summary.selected.any() else "WARNING"
        self.report({level}, f"{obj.name}: " + ", ".join(summary.lines())
                    + f"; {int(summary.selected.sum())} vertices selected")
        return {"FINISHED"}


class DASH_OT_limit_weights(bpy.types.Operator):
    """Keep the strongest bone influences per vertex as dash's reducer does for the
    export (ties by bone index), normalized to sum 1, in the vertex groups"""

    bl_idname = "dash.limit_weights"
    bl_label = "Limit Weights"
    bl_options = {"REGISTER", "UNDO"}

    max_influences: IntProperty(name="Max Influences", default=4, min=1, max=32,
                                description="Bone influences to keep per vertex")
    manifest_path: StringProperty(name="Manifest", subtype="FILE_PATH", default="",
                                  description="Bone manifest whose indices break ties, as in the export")
    fit: BoolProperty(name="Fit to Animation", default=False,
                      description="Choose the bones and weights that move each vertex least over the "
                                  "armature's action, instead of keeping the heaviest (needs an action)")

    @classmethod
    def poll(cls, context):
        """A mesh is active."""
        return _mesh_poll(context)

    def execute(self, context):
        """Reduce and write back the weights."""
        obj = context.active_object
        try:
            with runtime.object_mode(obj):
                done = limiting.limit(obj, self.max_influences, bpy.path.abspath(self.manifest_path),
                                      fit=self.fit)
        except _failures() as e:
            return _dash_failure(self, e)
        message = f"{obj.name}: {done.changed} vertices changed, {done.removed} influences removed"
        if done.fit is not None:
            plain, fitted = done.fit["objective_plain"], done.fit["objective_fitted"]
            share = f", {fitted / plain:.0%} of the plain displacement²" if plain > 0 else ""
            message += (f"; {done.fit['fitted']} of {done.fit['considered']} fitted over "
                        f"{done.fit['poses']} poses{share}")
        if done.below_exporter_threshold:
            self.report({"WARNING"}, message + f"; {done.below_exporter_threshold} kept influences "
                        "weigh 0.0001 or less, which the glTF exporter ignores")
        else:
            self.report({"INFO"}, message)
        return {"FINISHED"}


class DASH_OT_export_dashvertex(bpy.types.Operator, ExportHelper):
    """Export the active mesh as DashVertex JSON or DMX: the glTF exporter's data reduced
    by dash, bone indices from a manifest"""

    bl_idname = "export_mesh.dashvertex"
    bl_label = "Export DashVertex"
    bl_options = {"REGISTER"}

    filename_ext = ".json"
    filter_glob: StringProperty(default="*.json;*.dmx", options={"HIDDEN"})
    manifest_path: StringProperty(name="Manifest", subtype="FILE_PATH", default="",
                                  description="Bone manifest (created when missing); empty: the file's own joint order")
    max_influences: IntProperty(name="Max Influences", default=4, min=1, max=32)
    locked: BoolProperty(name="Locked", default=False,
                         description="Refuse to add a bone to the manifest")

    @classmethod
    def poll(cls, context):
        """A mesh is active."""
        return _mesh_poll(context)

    def check(self, context):
        """Keep a ``.dmx`` extension the user typed (ExportHelper would add ``.json``)."""
        if self.filepath.lower().endswith(".dmx"):
            return False
        return super().check(context)

    def invoke(self, context, event):
        """Start from the panel's manifest and limit."""
        scene = context.scene
        if not self.manifest_path:
            self.manifest_path = scene.dash_manifest_path
        self.max_influences = scene.dash_max_influences
        return super().invoke(context, event)

    def execute(self, context):
        """Write the file."""
        obj = context.active_object
        try:
            with runtime.object_mode(obj):
                result = exporting.export(obj, self.filepath, bpy.path.abspath(self.manifest_path),
                                          self.max_influences, self.locked)
        except _failures() as e:
            return _dash_failure(self, e)
        for level, text in result.messages:
            if level in ("warning", "note", "info"):
                self.report({"WARNING"} if level == "warning" else {"INFO"}, text)
        self.report({"INFO"}, f"wrote {os.path.basename(self.filepath)}")
        return {"FINISHED"}


def menu_export(self, context):
    """File ▸ Export entry."""
    self.layout.operator(DASH_OT_export_dashvertex.bl_idname, text="DashVertex (.json, .dmx)")


CLASSES = (DASH_OT_check_weights, DASH_OT_limit_weights, DASH_OT_export_dashvertex)
