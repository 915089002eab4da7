"""dashvertex.read on FBX: a vertex per control point with every influence, raw weights,
the skeleton by name; damaged FBX raises DashError with FBX_READ (spec/fbx.md)."""

from __future__ import annotations

import numpy as np
import pytest

import dashvertex
from conftest import REPO


def test_fbx_reads_its_control_points_with_every_influence() -> None:
    model = dashvertex.read(REPO / "fixtures/fbx/faults.fbx")
    assert model.format == "fbx"
    (p,) = model.primitives
    assert p.positions.shape == (24, 3)
    # Control point 5 has ten influences of 0.1: three sets of four.
    assert p.weights.shape == (24, 12)
    row = p.weights[5]
    assert np.count_nonzero(row) == 10
    assert np.allclose(row[row > 0], 0.1)
    # Control point 0 keeps its raw sum, 0.7, on Bone00 and Bone01.
    names = model.bones.names
    pairs = {names[j]: w for j, w in zip(p.joints[0], p.weights[0]) if w > 0}
    assert pairs == pytest.approx({"Bone00": 0.5, "Bone01": 0.2})


def test_fbx_bytes_and_path_agree_and_damage_is_refused() -> None:
    path = REPO / "spec/vectors/fbx/ascii-clean.fbx"
    a = dashvertex.read(path).primitives[0]
    b = dashvertex.read(path.read_bytes(), name="clean.fbx").primitives[0]
    assert np.array_equal(a.weights, b.weights) and np.array_equal(a.joints, b.joints)
    with pytest.raises(dashvertex.DashError) as e:
        dashvertex.read(REPO / "spec/vectors/fbx/truncated.fbx")
    assert "Truncated" in str(e.value)
