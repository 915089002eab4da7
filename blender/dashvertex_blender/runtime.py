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
    """Select exactly the vertices of `obj` where `mask` is true (and their edges and
    faces only where all their vertices are), so Edit and Weight Paint modes show them;
    in Weight Paint mode the vertex selection mask is turned on."""
    import numpy as np

    mesh = obj.data
    mask = np.asarray(mask, dtype=bool)
    mesh.vertices.foreach_set("select", mask)
    if len(mesh.edges):
        ev = np.empty(len(mesh.edges) * 2, dtype=np.int32)
        mesh.edges.foreach_get("vertices", ev)
        mesh.edges.foreach_set("select", mask[ev].reshape(-1, 2).all(axis=1))
    if len(mesh.polygons):
        loops = np.empty(len(mesh.loops), dtype=np.int32)
        mesh.loops.foreach_get("vertex_index", loops)
        start = np.empty(len(mesh.polygons), dtype=np.int32)
        mesh.polygons.foreach_get("loop_start", start)
        fully = np.logical_and.reduceat(mask[loops], start) if len(loops) else np.zeros(0, bool)
        mesh.polygons.foreach_set("select", fully)
    mesh.update_tag()
