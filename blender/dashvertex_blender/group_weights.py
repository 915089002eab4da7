# SPDX-License-Identifier: GPL-3.0-or-later
"""Every vertex group weight of a mesh object as one dense numpy matrix, read in bulk.

Blender's Python API has no ``foreach_get`` for deform weights (each vertex's ``groups``
is its own collection). Geometry nodes do see vertex groups as attributes, so the fast
path evaluates, in a temporary scene, a temporary object that shares the mesh and
carries one geometry-nodes modifier copying each group to a float attribute, then reads
those with ``foreach_get``.
A plain loop over ``vertex.groups`` is the fallback where that path is unavailable.
"""

import bpy
import numpy as np

#: Prefix of the float attributes the temporary node group writes.
_ATTRIBUTE_PREFIX = "dashvertex_w"


def socket(sockets, kind, name=None):
    """The first socket of `sockets` of RNA type `kind` (and `name`, when given)."""
    for s in sockets:
        if s.type == kind and (name is None or s.name == name):
            return s
    raise LookupError(f"no {kind} socket {name or ''}")


def geometry_sockets(tree):
    """Give `tree` a geometry input and output (the 3.x and the 4.x interface API)."""
    if hasattr(tree, "interface"):
        tree.interface.new_socket(name="Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
        tree.interface.new_socket(name="Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    else:
        tree.inputs.new("NodeSocketGeometry", "Geometry")
        tree.outputs.new("NodeSocketGeometry", "Geometry")


def _set(node, prop, value):
    """Set `node`'s enum `prop` to `value` unless it already is: each assignment
    updates the node tree (a millisecond for the 25 nodes of a rig's groups)."""
    if getattr(node, prop) != value:
        setattr(node, prop, value)


def copy_tree(label, pairs):
    """A geometry node group named `label` that stores, for each ``(source, target)``
    name of `pairs` in order, the float POINT attribute `source` as `target` (a vertex
    group's name writes that group)."""
    tree = bpy.data.node_groups.new(label, "GeometryNodeTree")
    try:
        geometry_sockets(tree)
        node_in = tree.nodes.new("NodeGroupInput")
        node_out = tree.nodes.new("NodeGroupOutput")
        geometry = node_in.outputs[0]
        for source, target in pairs:
            read = tree.nodes.new("GeometryNodeInputNamedAttribute")
            _set(read, "data_type", "FLOAT")
            read.inputs["Name"].default_value = source
            store = tree.nodes.new("GeometryNodeStoreNamedAttribute")
            _set(store, "data_type", "FLOAT")
            _set(store, "domain", "POINT")
            store.inputs["Name"].default_value = target
            tree.links.new(geometry, store.inputs["Geometry"])
            tree.links.new(socket(read.outputs, "VALUE"), socket(store.inputs, "VALUE", "Value"))
            geometry = store.outputs[0]
        tree.links.new(geometry, node_out.inputs[0])
    except Exception:
        bpy.data.node_groups.remove(tree)
        raise
    return tree


def _copy_tree(group_names):
    """A geometry node group storing group ``i`` as float attribute ``PREFIX_i``."""
    return copy_tree("dashvertex read weights",
                     [(name, f"{_ATTRIBUTE_PREFIX}{i}") for i, name in enumerate(group_names)])


def read_nodes(obj):
    """Dense ``(vertices, groups)`` float32 weights of `obj` through geometry nodes;
    column ``g`` is ``obj.vertex_groups[g]``, 0 where a vertex is not in the group.
    The object must be in Object (or a paint) mode, so its mesh holds the current data.
    The matrix is column-major (each group's weights contiguous, as ``foreach_get``
    fills them): the transpose of a (groups, vertices) array, no copy."""
    mesh = obj.data
    names = [g.name for g in obj.vertex_groups]
    n = len(mesh.vertices)
    out = np.zeros((len(names), n), dtype=np.float32)
    if not names or n == 0:
        return out.T
    tree = _copy_tree(names)
    # a scene of its own, so that evaluating the probe re-evaluates nothing else (the
    # object's own Armature modifier, say)
    scene = bpy.data.scenes.new("dashvertex weights probe")
    probe = bpy.data.objects.new("dashvertex weights probe", mesh)
    try:
        scene.collection.objects.link(probe)
        mod = probe.modifiers.new("dashvertex", "NODES")
        mod.node_group = tree
        with bpy.context.temp_override(scene=scene, view_layer=scene.view_layers[0]):
            depsgraph = bpy.context.evaluated_depsgraph_get()
        evaluated = probe.evaluated_get(depsgraph).data
        if len(evaluated.vertices) != n:
            raise RuntimeError("the evaluated mesh has another vertex count")
        attributes = evaluated.attributes
        for i in range(len(names)):
            attributes[f"{_ATTRIBUTE_PREFIX}{i}"].data.foreach_get("value", out[i])
    finally:
        bpy.data.objects.remove(probe, do_unlink=True)
        bpy.data.scenes.remove(scene)
        bpy.data.node_groups.remove(tree)
    return out.T


def read_loop(obj):
    """Dense ``(vertices, groups)`` float32 weights of `obj`, vertex by vertex (slow)."""
    mesh = obj.data
    out = np.zeros((len(mesh.vertices), len(obj.vertex_groups)), dtype=np.float32)
    for v in mesh.vertices:
        row = out[v.index]
        for g in v.groups:
            if g.group < row.shape[0]:
                row[g.group] = g.weight
    return out


def read(obj):
    """Dense ``(vertices, groups)`` float32 weights of `obj`: the geometry-nodes path,
    or the loop where geometry nodes cannot read vertex groups."""
    try:
        return read_nodes(obj)
    except (LookupError, RuntimeError, AttributeError, KeyError, TypeError):
        return read_loop(obj)
