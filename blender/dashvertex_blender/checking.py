# SPDX-License-Identifier: GPL-3.0-or-later
"""`check`: dash's validator on a mesh's bone weights as the glTF exporter reads them,
and the per-vertex facts the panel shows beside its codes."""

from dataclasses import dataclass, field
from typing import Dict, List

import numpy as np

from . import exporter_view, glb, runtime

#: Vertices with more bone influences than the limit (they would lose weight).
OVER_LIMIT = "INFLUENCES_OVER_LIMIT"
#: Vertices without any bone influence (the exporter binds them to its neutral bone).
NO_BONE = "NO_BONE_INFLUENCE"
#: Vertex groups that name no bone of the armature (the exporter ignores them).
NON_BONE_GROUP = "NON_BONE_GROUP"


@dataclass
class Summary:
    """One check of one mesh: ``counts`` per code (dash's validator codes and the three
    Blender-side codes of this module), the vertices to select (more than K bone
    influences, or none), the non-bone group names and dash's `dashvertex.Report`."""

    counts: Dict[str, int]
    selected: np.ndarray
    non_bone_groups: List[str]
    report: object = field(repr=False)

    def lines(self):
        """The counts as ``CODE: n`` lines, Blender-side codes first."""
        own = [OVER_LIMIT, NO_BONE, NON_BONE_GROUP]
        keys = own + sorted(k for k in self.counts if k not in own)
        return [f"{k}: {self.counts[k]}" for k in keys if k in self.counts]


def raw_glb(view):
    """GLB bytes of the exporter's influences before it normalizes them and adds its
    neutral bone, so dash sees the sums the artist painted."""
    joints, weights = exporter_view.sorted_influences(view.bones)
    return glb.encode(view.obj_name, view.positions, view.skin, joints, weights)


def check(obj, max_influences=4):
    """dash's rules (profile ``gltf``: the weights must sum to 1) on the bone influences
    of mesh object `obj` as the glTF exporter reads them; returns the
    `dashvertex.Report`."""
    return summarize(obj, max_influences).report


def summarize(obj, max_influences=4, dense=None):
    """`check` with the counts the operator and panel show: every code of dash's report
    and the add-on's three (`OVER_LIMIT`, `NO_BONE`, `NON_BONE_GROUP`)."""
    dv = runtime.dashvertex()
    view = exporter_view.gather(obj, dense)
    report = dv.validate(raw_glb(view), profile="gltf", name=f"{obj.name}.glb")
    counts = view.influence_counts
    over = counts > max_influences
    empty = counts == 0
    codes = {OVER_LIMIT: int(over.sum()), NO_BONE: int(empty.sum()),
             NON_BONE_GROUP: len(view.non_bone_groups)}
    for code, n in report.codes.items():
        codes[code] = int(n)
    return Summary(codes, over | empty, list(view.non_bone_groups), report)
