# SPDX-License-Identifier: GPL-3.0-or-later
"""dash inside Blender: check, limit and export bone weights with stable bone indices.

Every rule, the reducer and the writers are dash's Rust code, reached through the
``dashvertex`` Python package. From a script:

- :func:`check` — ``dashvertex_blender.check(obj, max_influences=4) -> dashvertex.Report``;
- :func:`limit` — dash's reduction written back into the vertex groups;
- :func:`export` — DashVertex JSON or DMX, as ``dashvertex reduce`` makes it from the
  mesh's glTF export.

Operators: ``bpy.ops.dash.check_weights``, ``bpy.ops.dash.limit_weights``,
``bpy.ops.export_mesh.dashvertex``; the "Dash" tab of the 3D viewport's sidebar.
"""

bl_info = {
    "name": "Dash Weights",
    "author": "dash contributors",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Sidebar > Dash; File > Export > DashVertex",
    "description": "Check, limit and export bone weights with dash (stable bone indices)",
    "category": "Rigging",
}

import bpy

from . import checking, exporting, limiting, operators, panel

#: See `checking.check`.
check = checking.check
#: See `limiting.limit`.
limit = limiting.limit
#: See `exporting.export`.
export = exporting.export

_CLASSES = operators.CLASSES + (panel.DASH_PT_weights,)


def register():
    """Register the operators, the panel, its scene settings and the export menu entry."""
    panel.register_properties()
    for cls in _CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_export.append(operators.menu_export)


def unregister():
    """Undo `register`."""
    bpy.types.TOPBAR_MT_file_export.remove(operators.menu_export)
    for cls in reversed(_CLASSES):
        bpy.utils.unregister_class(cls)
    panel.unregister_properties()
