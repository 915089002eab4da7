# SPDX-License-Identifier: GPL-3.0-or-later
"""`limit`: dash's reducer written back into a mesh's vertex groups.

The reducer (``dashvertex.reduce``: strongest K, ties by bone index, exact unit
normalization) runs on the influence sets the glTF exporter would write (its threshold,
its order, its normalization), each joint numbered with the index the export would give
its bone (the manifest's, or the exporter's joint order), as ``dashvertex reduce`` reads
the exported file. So each vertex keeps the bones, and gets the weights, that
``export_mesh.dashvertex`` writes for it.
"""

import os
from dataclasses import dataclass
from typing import Optional

import bpy
import numpy as np

from . import exporter_view, group_weights, runtime, skeleton


@dataclass
class Limited:
    """What `limit` did: vertices whose bone weights changed, bone influences removed,
    kept influences whose normalized weight is at or below the glTF exporter's 0.0001
    (the exporter will ignore them: a bone dash keeps, with a weight too small for the
    exporter), dash's `dashvertex.ReduceReport`, and how the weights were written
    (`write_group_weights`: "nodes", "loop", "removes" or "none")."""

    changed: int
    removed: int
    below_exporter_threshold: int
    report: object
    written_by: str = "none"
    fit: Optional[dict] = None


def export_indices(skin, manifest_path=""):
    """The bone index each joint of `skin` gets in the export: from the manifest at
    `manifest_path` (numbered as a new one would be when the file does not exist yet),
    or the exporter's joint order without a manifest. The manifest file is not changed."""
    if not manifest_path:
        return np.arange(len(skin.joints))
    dv = runtime.dashvertex()
    path = os.path.abspath(os.path.expanduser(manifest_path))
    manifest = dv.Manifest.load(path) if os.path.exists(path) else dv.Manifest()
    return np.asarray(manifest.assign(skeleton.parents(skin)), dtype=np.int64)


#: Most frames a fitted limit measures: a longer action is thinned to this many frames,
#: evenly spaced (the first of each equal share), beside the rest pose.
MAX_FIT_FRAMES = 256


class NoAnimation(ValueError):
    """A fitted limit was asked for a mesh whose armature has no action to fit to."""


def fit_frames(arm):
    """The frames a fitted limit measures: every whole frame of the armature's action
    (its frame range), thinned evenly to `MAX_FIT_FRAMES`. Raises `NoAnimation` when
    the armature has no action."""
    data = arm.animation_data
    action = data.action if data is not None else None
    if action is None:
        raise NoAnimation(f"{arm.name!r} has no action: a fitted limit fits the weights to the "
                          "armature's animation; assign one (or limit without fitting)")
    start, end = (int(round(x)) for x in action.frame_range)
    frames = list(range(start, max(start, end) + 1))
    if len(frames) > MAX_FIT_FRAMES:
        frames = [frames[i * len(frames) // MAX_FIT_FRAMES] for i in range(MAX_FIT_FRAMES)]
    return frames


def pose_matrices(view, index, arm, frames):
    """The joint matrices (global × inverse bind, in glTF's +Y-up space, where the
    export's positions are) of the rest pose and of each frame of `frames`, as a
    (1 + frames, joint indices, 4, 4) array indexed by the export's bone index (`index`
    of each joint); indices no joint has, and the neutral bone, stay identity. The
    scene's frame is restored afterwards."""
    scene = bpy.context.scene
    frame, subframe = scene.frame_current, scene.frame_subframe
    to_gltf = np.array(skeleton.Y_UP) @ np.array(arm.matrix_world)
    from_gltf = np.linalg.inv(to_gltf)
    rest_inverse = {b.name: np.linalg.inv(np.array(b.matrix_local)) for b in arm.data.bones}
    out = np.tile(np.eye(4), (1 + len(frames), int(index.max(initial=-1)) + 1, 1, 1))
    try:
        for p, f in enumerate(frames, start=1):
            scene.frame_set(f)
            for j, joint in enumerate(view.skin.joints):
                bone = arm.pose.bones.get(joint.name)
                if bone is None:  # the neutral bone: it never moves
                    continue
                out[p, index[j]] = to_gltf @ np.array(bone.matrix) @ rest_inverse[joint.name] @ from_gltf
    finally:
        scene.frame_set(frame, subframe=subframe)
    return out


def reduced(view, max_influences=4, manifest_path="", arm=None):
    """dash's reduction of `view` (`exporter_view.View`) as ``dashvertex reduce`` runs it
    on the export: the exporter's influence sets, their joints numbered as the export
    numbers its bones, reduced as sets. With armature `arm`, the fitted reduction
    (spec/reduction.md §6) over the rest pose and the frames of its action
    (`fit_frames`): each vertex that loses bones gets the bones and weights that move it
    least from its skinning with every influence, or keeps the plain ones when no fit
    moves it less. Returns ``(joints, weights, report)``: joints (int64, joint order) and
    float32 weights of shape (vertices, 4 × sets), a weight of 0 is padding; the
    report's ``fit`` says what the fit did."""
    dv = runtime.dashvertex()
    joints, weights = exporter_view.exporter_influences(view)
    index = export_indices(view.skin, manifest_path)
    # row-major unsigned joints: the reducer reads them in place
    numbered = index.astype(np.uint32)[joints]
    fit = {}
    if arm is not None:
        poses = pose_matrices(view, index, arm, fit_frames(arm))
        fit = {"fit": True, "positions": view.positions, "poses": poses}
    out_j, out_w, report = dv.reduce(numbered, weights, max_influences=max_influences,
                                     normalize="unit", empty="zero", **fit)
    joint_of_index = np.full(int(index.max(initial=-1)) + 1, -1, dtype=np.int64)
    joint_of_index[index] = np.arange(len(index))
    return joint_of_index[out_j], out_w, report


def limited_weights(obj, dense, view, joints, weights):
    """`dense` (`obj`'s weights, `group_weights.read`) with the reduction written in:
    on every vertex with bone weights, each bone's group holds the weight `joints` and
    `weights` (`reduced`) give it, 0 for the bones dropped; the non-bone groups and the
    vertices without bone weights as they are. Column-major, as `dense` is read."""
    group_of = {g.name: g.index for g in obj.vertex_groups}
    group = np.array([group_of.get(j.name, -1) for j in view.skin.joints], dtype=np.int64)
    keep = ~view.unweighted  # vertices without bone weights are left as they are
    written = np.array(dense, dtype=np.float32, order="F")
    columns = written.T  # one contiguous row per vertex group
    bones = group[group >= 0]
    if keep.all():
        columns[bones] = 0.0
    else:
        cleared = columns[bones]
        cleared[:, keep] = 0.0
        columns[bones] = cleared
    # each kept influence at its flat position in `columns`: group × vertices + vertex
    # (padding slots, joint -1, index anything: `weights > 0` leaves them out)
    target = group[joints]
    at = target * len(keep) + np.arange(len(keep))[:, None]
    use = (weights > 0) & (target >= 0) & keep[:, None]
    columns.reshape(-1)[at[use]] = weights[use]
    return written


#: Prefix of the temporary float attributes `write_nodes` stores vertex groups from.
_ATTRIBUTE_PREFIX = "dashvertex_new_w"

#: Names Blender's geometry nodes resolve to a mesh's own data before a vertex group:
#: a Store Named Attribute to one of them would not reach the group.
_BUILTIN_NAMES = frozenset(("position", "normal", "id", "material_index", "shade_smooth",
                            "sharp_face", "sharp_edge", "crease", "radius", "velocity"))


class NodesUnavailable(RuntimeError):
    """`write_nodes` cannot write this mesh's vertex groups (shape keys, shared or
    linked data, a group name geometry nodes would not resolve to the group, an
    operator that failed); the weights are unchanged."""


def _store_tree(columns):
    """A geometry node group storing, for each ``(group name, attribute name)`` of
    `columns`, the float POINT attribute into the vertex group."""
    return group_weights.copy_tree("dashvertex write weights",
                                   [(attribute, group) for group, attribute in columns])


def _nodes_refusal(obj, groups):
    """Why `write_nodes` cannot write vertex groups `groups` (indices) of `obj`, or
    None. Applying a modifier refuses shape keys and shared or linked meshes; a group
    named like a mesh attribute would be written to that attribute instead."""
    mesh = obj.data
    if mesh.shape_keys is not None:
        return "the mesh has shape keys"
    if mesh.users > 1 or mesh.library is not None or obj.library is not None:
        return "the mesh is shared or linked"
    if getattr(obj, "override_library", None) is not None:
        return "the object is a library override"
    if bpy.context.view_layer.objects.get(obj.name) != obj:
        return "the object is not in the current view layer"
    taken = set(mesh.attributes.keys()) | _BUILTIN_NAMES
    for g in groups:
        name = obj.vertex_groups[g].name
        if name in taken or name.startswith(".") or name.startswith(_ATTRIBUTE_PREFIX):
            return f"vertex group {name!r} is named like a mesh attribute"
    if any(name.startswith(_ATTRIBUTE_PREFIX) for name in mesh.attributes.keys()):
        return "the mesh has attributes named like the temporary ones"
    return None


def _move_first(obj, mod):
    """Move modifier `mod` of `obj` to the top of its stack. The operator runs with an
    empty scene's view layer as context: bpy.ops updates that one before and after
    (nothing to evaluate), and `obj` is evaluated once, by the apply that follows."""
    scene = bpy.data.scenes.new("dashvertex write weights")
    try:
        with bpy.context.temp_override(object=obj, active_object=obj, scene=scene,
                                       view_layer=scene.view_layers[0]):
            bpy.ops.object.modifier_move_to_index(modifier=mod.name, index=0)
    finally:
        bpy.data.scenes.remove(scene)


def write_nodes(obj, new, groups):
    """Set, in one geometry-nodes modifier applied to `obj`, every vertex's weight in
    each vertex group of `groups` (indices) to column ``new[:, g]``: the columns go
    into temporary float attributes, a Store Named Attribute per group copies them
    into the groups, the modifier is moved first and applied (it alone is evaluated:
    the Armature modifier and the others stay as they are), then the attributes go.

    Blender 3.4's vertex-group attribute writer sets the weight of every vertex that
    is in the group and adds the vertex where the value is non-zero; a zero keeps the
    vertex in the group at weight 0. So the caller removes dropped entries first and
    passes weights only where the vertex is (or stays) in the group.
    Raises `NodesUnavailable` where this cannot be done: then no weight was written,
    and the temporary attributes, modifier and node group are gone."""
    why = _nodes_refusal(obj, groups)
    if why:
        raise NodesUnavailable(why)
    mesh = obj.data
    columns = []
    tree = mod = None
    # each operator call re-evaluates the object (bpy.ops updates the view layer before
    # and after): with the stack off meanwhile that is a copy of the mesh, not an
    # Armature deform (or a Subdivision) per call; the stack is evaluated once, after
    shown = [m for m in obj.modifiers if m.show_viewport]
    try:
        for m in shown:
            m.show_viewport = False
        for g in groups:
            attribute = mesh.attributes.new(f"{_ATTRIBUTE_PREFIX}{g}", "FLOAT", "POINT")
            attribute.data.foreach_set("value", np.ascontiguousarray(new[:, g], dtype=np.float32))
            columns.append((obj.vertex_groups[g].name, attribute.name))
        tree = _store_tree(columns)
        mod = obj.modifiers.new("dashvertex write weights", "NODES")
        mod.node_group = tree
        mod.show_viewport = False  # applied, never evaluated with the stack
        _move_first(obj, mod)
        with bpy.context.temp_override(object=obj, active_object=obj):
            done = bpy.ops.object.modifier_apply(modifier=mod.name)
        if "FINISHED" not in done:
            raise NodesUnavailable("applying the modifier was cancelled")
        mod = None
    except NodesUnavailable:
        raise
    # bpy.ops reports an operator's error as RuntimeError; the others are a Blender
    # whose node or operator API differs from the one this was written against
    except (RuntimeError, LookupError, AttributeError, TypeError) as e:
        raise NodesUnavailable(f"{type(e).__name__}: {e}") from e
    finally:
        if mod is not None and mod.name in obj.modifiers:
            obj.modifiers.remove(mod)
        for _, attribute in columns:
            if attribute in mesh.attributes:
                mesh.attributes.remove(mesh.attributes[attribute])
        if tree is not None:
            bpy.data.node_groups.remove(tree)
        for m in shown:
            m.show_viewport = True


def write_loop(obj, new, changed):
    """Set each vertex of `changed` (indices) to its row of `new` in every vertex group
    it is in, one ``foreach_set`` per vertex (slow)."""
    vertices = obj.data.vertices
    width = new.shape[1]
    for v, row in zip(changed.tolist(), new[changed].tolist()):
        elements = vertices[v].groups
        ids = [0] * len(elements)
        elements.foreach_get("group", ids)
        elements.foreach_set("weight", [row[g] if g < width else 0.0 for g in ids])


def write_group_weights(obj, old, new, use_nodes=True):
    """Write `new` (vertices, vertex groups) into `obj`'s vertex groups where it differs
    from `old` (their current weights, same layout): entries `new` zeroes are removed
    from their group, one call per group; then the remaining weights of the groups
    that change are set, by `write_nodes` (with `use_nodes`) or else `write_loop` (every
    entry `new` keeps is already there: the reducer only drops). Either way a vertex
    leaves exactly the groups `new` zeroes for it, and no 0-weight entry is made.
    Returns ``(vertices changed, entries removed, how)``: how is "nodes" or "loop", or
    "removes" when only entries were removed, "none" when nothing changed."""
    # group by group on contiguous rows (no copy for the column-major matrices of
    # `group_weights.read` and `limited_weights`)
    old_rows, new_rows = np.ascontiguousarray(old.T), np.ascontiguousarray(new.T)
    changed = np.zeros(old_rows.shape[1], dtype=bool)
    removed = 0
    weighted = []
    vertex_groups = obj.vertex_groups
    for g, (before, after) in enumerate(zip(old_rows, new_rows)):
        differs = before != after
        if not differs.any():
            continue
        changed |= differs
        drop = np.flatnonzero(differs & (after == 0))
        if len(drop):
            vertex_groups[g].remove(drop.tolist())
            removed += len(drop)
        # a group that only lost entries needs no weight written
        if len(drop) < np.count_nonzero(differs):
            weighted.append(g)
    changed = np.flatnonzero(changed)
    if not len(changed):
        return 0, 0, "none"
    if not weighted:
        return len(changed), removed, "removes"
    if use_nodes:
        try:
            write_nodes(obj, new, weighted)
            return len(changed), removed, "nodes"
        except NodesUnavailable:
            pass
    write_loop(obj, new, changed)
    return len(changed), removed, "loop"


def limit(obj, max_influences=4, manifest_path="", use_nodes=True, fit=False):
    """Keep, per vertex of mesh object `obj`, the `max_influences` bone influences dash's
    reducer keeps for the export of `obj` (bone indices from `manifest_path` when given,
    which only break ties), normalized to sum 1, written into the vertex groups. With
    `fit`, the bones and weights fitted to the armature's action instead (`reduced`);
    raises `NoAnimation` when it has none.
    Bone weights at or below the exporter's threshold go too; non-bone groups and
    vertices without bone weights are left alone. The weights are written by geometry
    nodes where `use_nodes` and the mesh allows it, else vertex by vertex; both give
    the same groups and weights. Returns `Limited`."""
    dense = group_weights.read(obj)
    view = exporter_view.gather(obj, dense)
    arm = skeleton.armature_of(obj) if fit else None
    joints, weights, report = reduced(view, max_influences, manifest_path, arm)
    written = limited_weights(obj, dense, view, joints, weights)
    changed, removed, path = write_group_weights(obj, dense, written, use_nodes)
    obj.data.update()
    kept = weights[~view.unweighted]
    tiny = int(np.count_nonzero((kept > 0) & (kept <= np.float32(exporter_view.EXPORTER_MIN_WEIGHT))))
    return Limited(changed, removed, tiny, report, path, report.fit)
