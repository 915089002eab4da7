# SPDX-License-Identifier: GPL-3.0-or-later
"""`limit`: dash's reducer written back into a mesh's vertex groups.

The reducer (``dashvertex.reduce``: strongest K, ties by bone index, exact unit
normalization) runs on a dense per-bone matrix holding the weights the glTF exporter
would write (its threshold, its normalization), with one column per bone at the index
the export would give it (the manifest's, or the exporter's joint order). So each vertex
keeps the bones, and gets the weights, that ``export_mesh.dashvertex`` writes for it.
"""

import os
from dataclasses import dataclass

import numpy as np

from . import exporter_view, group_weights, runtime, skeleton


@dataclass
class Limited:
    """What `limit` did: vertices whose bone weights changed, bone influences removed,
    and dash's `dashvertex.ReduceReport`."""

    changed: int
    removed: int
    report: object


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


def reduced(view, max_influences=4, manifest_path=""):
    """dash's reduction of `view` (`exporter_view.View`): ``(bone weights, report)``
    with bone weights a (vertices, joints) float32 matrix in joint order."""
    dv = runtime.dashvertex()
    joints, weights = exporter_view.exporter_influences(view)
    index = export_indices(view.skin, manifest_path)
    width = int(index.max(initial=-1)) + 1
    dense = np.zeros((joints.shape[0], width), dtype=np.float32)
    rows = np.repeat(np.arange(joints.shape[0]), joints.shape[1])
    used = weights.reshape(-1) > 0
    dense[rows[used], index[joints.reshape(-1)[used]]] = weights.reshape(-1)[used]
    out_j, out_w, report = dv.reduce(None, dense, max_influences=max_influences,
                                     normalize="unit", empty="zero")
    joint_of_index = np.full(width, -1, dtype=np.int64)
    joint_of_index[index] = np.arange(len(index))
    result = np.zeros((joints.shape[0], len(view.skin.joints)), dtype=np.float32)
    rows = np.repeat(np.arange(out_j.shape[0]), out_j.shape[1])
    keep = out_w.reshape(-1) > 0
    result[rows[keep], joint_of_index[out_j.reshape(-1)[keep].astype(np.int64)]] = out_w.reshape(-1)[keep]
    return result, report


def write_bone_weights(obj, group_of_joint, old, new):
    """Write `new` (vertices, joints) into `obj`'s bone vertex groups where it differs
    from `old` (the groups' current weights, same layout). Influences `new` drops are
    removed from their group, one call per group; then each changed vertex's remaining
    weights are set in one ``foreach_set`` (every kept bone is already in its group:
    the reducer only drops). Returns ``(vertices changed, influences removed)``."""
    changed = np.nonzero((old != new).any(axis=1))[0]
    removed = 0
    groups = obj.vertex_groups
    for j, g in enumerate(group_of_joint):
        if g is None or not len(changed):
            continue
        drop = changed[(old[changed, j] != 0) & (new[changed, j] == 0)]
        if len(drop):
            groups[g].remove(drop.tolist())
            removed += len(drop)
    joint_of_group = [-1] * len(groups)
    for j, g in enumerate(group_of_joint):
        if g is not None:
            joint_of_group[g] = j
    vertices = obj.data.vertices
    for v, row in zip(changed.tolist(), new[changed].tolist()):
        elements = vertices[v].groups
        k = len(elements)
        ids = [0] * k
        weights = [0.0] * k
        elements.foreach_get("group", ids)
        elements.foreach_get("weight", weights)
        for i, g in enumerate(ids):
            j = joint_of_group[g] if g < len(joint_of_group) else -1
            if j >= 0:
                weights[i] = row[j]
        elements.foreach_set("weight", weights)
    return len(changed), removed


def limit(obj, max_influences=4, manifest_path=""):
    """Keep, per vertex of mesh object `obj`, the `max_influences` bone influences dash's
    reducer keeps for the export of `obj` (bone indices from `manifest_path` when given,
    which only break ties), normalized to sum 1, written into the vertex groups.
    Bone weights at or below the exporter's threshold go too; non-bone groups and
    vertices without bone weights are left alone. Returns `Limited`."""
    dense = group_weights.read(obj)
    view = exporter_view.gather(obj, dense)
    new, report = reduced(view, max_influences, manifest_path)
    names = {g.name: g.index for g in obj.vertex_groups}
    group_of_joint = [names.get(j.name) for j in view.skin.joints]
    old = np.zeros_like(new)
    for j, g in enumerate(group_of_joint):
        if g is not None:
            old[:, j] = dense[:, g]
    untouched = view.unweighted
    new[untouched] = old[untouched]
    changed, removed = write_bone_weights(obj, group_of_joint, old, new)
    obj.data.update()
    return Limited(changed, removed, report)
