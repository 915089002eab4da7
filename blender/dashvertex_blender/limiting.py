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
    kept influences whose normalized weight is at or below the glTF exporter's 0.0001
    (the exporter will ignore them: a bone dash keeps, with a weight too small for the
    exporter), and dash's `dashvertex.ReduceReport`."""

    changed: int
    removed: int
    below_exporter_threshold: int
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


def write_group_weights(obj, old, new):
    """Write `new` (vertices, vertex groups) into `obj`'s vertex groups where it differs
    from `old` (their current weights, same layout): entries `new` zeroes are removed
    from their group, one call per group; then each changed vertex's remaining entries
    are set in one ``foreach_set`` (every entry `new` keeps is already there: the reducer
    only drops). Returns ``(vertices changed, entries removed)``."""
    changed = np.nonzero((old != new).any(axis=1))[0]
    if not len(changed):
        return 0, 0
    removed = 0
    groups = obj.vertex_groups
    before, after = old[changed], new[changed]
    for g in np.nonzero((before != after).any(axis=0))[0].tolist():
        drop = changed[(before[:, g] != 0) & (after[:, g] == 0)]
        if len(drop):
            groups[g].remove(drop.tolist())
            removed += len(drop)
    vertices = obj.data.vertices
    width = new.shape[1]
    for v, row in zip(changed.tolist(), after.tolist()):
        elements = vertices[v].groups
        ids = [0] * len(elements)
        elements.foreach_get("group", ids)
        elements.foreach_set("weight", [row[g] if g < width else 0.0 for g in ids])
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
    written = dense.copy()
    keep = ~view.unweighted  # vertices without bone weights are left as they are
    names = {g.name: g.index for g in obj.vertex_groups}
    for j, joint in enumerate(view.skin.joints):
        g = names.get(joint.name)
        if g is not None:
            written[keep, g] = new[keep, j]
    changed, removed = write_group_weights(obj, dense, written)
    obj.data.update()
    kept = new[keep]
    tiny = int(np.count_nonzero((kept > 0) & (kept <= np.float32(exporter_view.EXPORTER_MIN_WEIGHT))))
    return Limited(changed, removed, tiny, report)
