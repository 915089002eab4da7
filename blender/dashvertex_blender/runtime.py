# SPDX-License-Identifier: GPL-3.0-or-later
"""What the add-on needs from its surroundings: the `dashvertex` package, and the
object in Object mode while its mesh data is read or written."""

import contextlib

import bpy


class MissingPackage(RuntimeError):
    """The `dashvertex` Python package cannot be imported."""


def dashvertex():
    """The `dashvertex` module, or `MissingPackage` saying how to install it."""
    try:
        import dashvertex as dv
    except ImportError as e:
        raise MissingPackage(
            "the dashvertex Python package is not installed for Blender's Python: install "
            "the add-on as an extension (the zip carries its wheel), or put the wheel's "
            f"contents on PYTHONPATH ({e})") from e
    return dv


def available():
    """True when `dashvertex` imports."""
    try:
        dashvertex()
    except MissingPackage:
        return False
    return True


@contextlib.contextmanager
def object_mode(obj):
    """Run the block with `obj` active in Object mode (Edit mode keeps its changes in
    an edit copy until it is left), then go back to the mode it was in."""
    view_layer = bpy.context.view_layer
    previous_active = view_layer.objects.active
    previous_mode = obj.mode
    if previous_active is not obj:
        view_layer.objects.active = obj
    if previous_mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    try:
        yield
    finally:
        if previous_mode != "OBJECT" and obj.mode != previous_mode:
            bpy.ops.object.mode_set(mode=previous_mode)
        if previous_active is not obj:
            view_layer.objects.active = previous_active


def select_vertices(obj, mask):
    """Select exactly the vertices of `obj` (in Object mode) where `mask` is true, and no
    edge or face; `flush_edit_selection` then selects, in Edit mode, the edges and faces
    whose vertices all are."""
    import numpy as np

    mesh = obj.data
    mesh.vertices.foreach_set("select", np.asarray(mask, dtype=bool))
    for elements, layer in ((mesh.edges, ".select_edge"), (mesh.polygons, ".select_poly")):
        # from 3.4 on the selection is a boolean attribute, absent where nothing is
        # selected: then there is nothing to clear (element by element, ~40 ns each)
        if bpy.app.version < (3, 4, 0) or layer in mesh.attributes:
            elements.foreach_set("select", np.zeros(len(elements), dtype=bool))
    mesh.update_tag()


def flush_edit_selection(obj):
    """In Edit mode, select the edges and faces all of whose vertices are selected."""
    if obj.mode != "EDIT":
        return
    import bmesh

    bm = bmesh.from_edit_mesh(obj.data)
    bm.select_flush(True)
    bmesh.update_edit_mesh(obj.data, loop_triangles=False, destructive=False)
