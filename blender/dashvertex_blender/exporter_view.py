# SPDX-License-Identifier: GPL-3.0-or-later
"""A mesh's skinning data as Blender's glTF exporter (3.4, "Include All Bone Influences")
reads it: positions in glTF space, bone influences from the vertex groups that name a
bone, the exporter's weight threshold, order, neutral bone and normalization.

This is the exporter's behaviour, not dash's: dash's rules run in Rust on what this
module hands them (`glb.encode` makes a GLB of it).
"""

from dataclasses import dataclass
from typing import List

import numpy as np

from . import group_weights, runtime, skeleton

#: The exporter ignores weights at or below this (``min_influence``).
EXPORTER_MIN_WEIGHT = 0.0001


class NotSkinned(ValueError):
    """The object is not a mesh the glTF exporter would skin."""


@dataclass
class View:
    """What the exporter sees of one mesh object.

    ``bones``: the (vertices, joints) float32 matrix of raw bone weights in joint order
    (weights at or below the exporter's threshold zeroed); ``non_bone_groups``: names of
    vertex groups that match no bone; ``positions``: (vertices, 3) float32 in glTF space;
    ``skin``: the joints (with the neutral bone when some vertex has no bone weight).
    """

    obj_name: str
    positions: np.ndarray
    bones: np.ndarray
    skin: skeleton.Skin
    non_bone_groups: List[str]

    @property
    def unweighted(self):
        """Boolean mask of vertices without any bone influence (the neutral bone's)."""
        return ~(self.bones > 0).any(axis=1)

    @property
    def influence_counts(self):
        """Bone influences per vertex."""
        return np.count_nonzero(self.bones, axis=1)


def positions(obj):
    """Vertex positions as the exporter writes a skinned mesh: world space, then
    (x, y, z) → (x, z, −y), float32 (the basis shape when shape keys are exported)."""
    mesh = obj.data
    n = len(mesh.vertices)
    locs = np.empty(n * 3, dtype=np.float32)
    keys = mesh.shape_keys.key_blocks if mesh.shape_keys else []
    live = [k for k in keys if not (k == k.relative_key or k.mute)]
    source = live[0].relative_key.data if live else mesh.vertices
    source.foreach_get("co", locs)
    locs = locs.reshape(n, 3)
    m = obj.matrix_world
    world = np.matmul(locs, np.array(m.to_3x3().transposed()))
    world += np.array(m.translation)
    locs[:] = world
    locs[:, [1, 2]] = locs[:, [2, 1]]
    locs[:, 2] *= -1
    return locs


def gather(obj, dense=None):
    """The exporter's `View` of mesh object `obj`. `dense` is the object's weights as
    `group_weights.read` gives them (read when not given). Raises `NotSkinned` for an
    object the exporter would not skin."""
    arm = skeleton.armature_of(obj)
    if arm is None:
        raise NotSkinned(f"{getattr(obj, 'name', obj)!r} is not a mesh with vertex groups and "
                         "an Armature modifier: the glTF exporter writes no skin for it")
    if dense is None:
        dense = group_weights.read(obj)
    order = skeleton.bone_order(arm)
    joint_of = {b.name: i for i, b in enumerate(order)}
    groups = [g.name for g in obj.vertex_groups]
    group_of = {name: g for g, name in enumerate(groups)}
    non_bone = [name for name in groups if name not in joint_of]
    present = [(j, group_of[b.name]) for j, b in enumerate(order) if b.name in group_of]
    if len(present) == len(order):
        bones = dense[:, [g for _, g in present]]
    else:
        bones = np.zeros((dense.shape[0], len(order)), dtype=np.float32, order="F")
        if present:
            bones[:, [j for j, _ in present]] = dense[:, [g for _, g in present]]
    # w <= 1e-4 in double is w <= float32(1e-4) for a float32 w (float32(1e-4) < 1e-4)
    bones *= bones > np.float32(EXPORTER_MIN_WEIGHT)
    any_unweighted = not bool((bones > 0).any(axis=1).all())
    skin = skeleton.gather(arm, neutral=any_unweighted)
    return View(obj.name, positions(obj), bones, skin, non_bone)


def sorted_influences(bones):
    """Per vertex, the non-zero influences heaviest first as the exporter lays them out:
    ``(joints, weights)`` of shape (vertices, 4 × sets), padding joint 0 weight 0. Equal
    weights may come in any order (the values, and so the exporter's sums, are the same);
    here the lower joint comes first.

    The sort is dash's reducer keeping every influence unnormalized (its order: heaviest
    first, ties by joint), about half the time of numpy's partition and sort on 100 k
    vertices; numpy's `sorted_influences_numpy` where the reducer refuses the matrix."""
    n, b = bones.shape
    width = max(int(np.count_nonzero(bones, axis=1).max(initial=0)), 1)
    if n and b:
        dv = runtime.dashvertex()
        try:
            joints, weights, _ = dv.reduce(None, bones, max_influences=width,
                                           normalize="none", empty="zero")
        except dv.DashError:
            pass  # e.g. a weight above 1, set through the API: numpy lays it out
        else:
            return joints.astype(np.uint32), weights
    return sorted_influences_numpy(bones)


def sorted_influences_numpy(bones):
    """`sorted_influences` in numpy (equal weights in the order the partition leaves)."""
    n, b = bones.shape
    width = max(int(np.count_nonzero(bones, axis=1).max(initial=0)), 1)
    sets = (width + 3) // 4
    # the `width` heaviest columns of each row hold all its influences; sort only those
    if width < b:
        top = np.argpartition(-bones, width - 1, axis=1)[:, :width]
    else:
        top = np.broadcast_to(np.arange(b), (n, b))
    picked = np.take_along_axis(bones, top, axis=1)
    order = np.argsort(-picked, axis=1, kind="stable")
    joints = np.zeros((n, 4 * sets), dtype=np.uint32)
    weights = np.zeros((n, 4 * sets), dtype=np.float32)
    joints[:, :top.shape[1]] = np.take_along_axis(top, order, axis=1)
    weights[:, :top.shape[1]] = np.take_along_axis(picked, order, axis=1)
    joints[weights == 0] = 0
    return joints, weights


def with_neutral(view, joints, weights):
    """`joints`/`weights` with the exporter's neutral bone (weight 1, its last joint)
    on every vertex without a bone influence."""
    empty = view.unweighted
    if empty.any():
        joints = joints.copy()
        weights = weights.copy()
        joints[empty, 0] = len(view.skin.joints) - 1
        weights[empty, 0] = 1.0
    return joints, weights


def exporter_normalized(weights):
    """The exporter's normalization: the sum of each set of four (float32, as numpy sums
    it), added over the sets, then every weight divided by it."""
    sets = [np.ascontiguousarray(weights[:, s:s + 4]) for s in range(0, weights.shape[1], 4)]
    total = None
    for w in sets:
        sums = w.sum(axis=1)
        total = sums if total is None else total + sums
    total = total.reshape(-1, 1)
    for w in sets:
        w /= total
    return np.concatenate(sets, axis=1)


def exporter_influences(view):
    """``(joints, weights)`` exactly as the exporter writes them with every influence:
    sorted, the neutral bone on unweighted vertices, normalized."""
    joints, weights = sorted_influences(view.bones)
    joints, weights = with_neutral(view, joints, weights)
    return joints, exporter_normalized(weights)
