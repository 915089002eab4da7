"""dashvertex.reduce(fit=True) on numpy arrays (spec/reduction.md §6): the caller gives
positions and the joint matrices of each pose; the output is checked by a numpy
evaluator written here (linear blend skinning of every vertex at every pose given), not by
dash's own skinning or fit."""

from __future__ import annotations

import numpy as np
import pytest

import dashvertex
from conftest import REPO
from gltf_decode import Document
from test_fit import globals_at

RIG = "fixtures/blender/loss_rig.glb"


def objective(joints: np.ndarray, weights: np.ndarray, full_j: np.ndarray, full_w: np.ndarray,
              positions: np.ndarray, poses: np.ndarray) -> np.ndarray:
    """Per vertex, the squared distance from the skinning with every influence, summed
    over the poses."""
    hom = np.c_[positions.astype(np.float64), np.ones(len(positions))]
    total = np.zeros(len(positions))
    for pose in poses:
        def skin(j: np.ndarray, w: np.ndarray) -> np.ndarray:
            moved = np.einsum("vkij,vj->vki", pose[j][:, :, :3, :], hom)
            return (w.astype(np.float64)[:, :, None] * moved).sum(axis=1)
        total += ((skin(joints, weights) - skin(full_j, full_w)) ** 2).sum(axis=1)
    return total


def rig_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """loss_rig.glb's joints, weights (every set side by side), positions, and the joint
    matrices at the rest pose and every keyframe of its animation."""
    doc = Document(REPO / RIG)
    attrs = doc.json["meshes"][0]["primitives"][0]["attributes"]
    sets = range(sum(1 for a in attrs if a.startswith("JOINTS_")))
    joints = np.hstack([doc.joints(attrs[f"JOINTS_{s}"]) for s in sets]).astype(np.int64)
    weights = np.hstack([doc.weights(attrs[f"WEIGHTS_{s}"]) for s in sets]).astype(np.float32)
    positions = doc.positions(attrs["POSITION"]).astype(np.float32)
    skin = doc.json["skins"][0]
    ibm = doc.accessor(skin["inverseBindMatrices"])[0].astype(np.float64)
    ibm = ibm.reshape(-1, 4, 4).transpose(0, 2, 1)
    anim = doc.json["animations"][0]
    keys = len(doc.accessor(anim["samplers"][0]["input"])[0])
    poses = []
    for key in [None, *range(keys)]:
        g = globals_at(doc, key)
        poses.append([g[n] @ ibm[j] for j, n in enumerate(skin["joints"])])
    return joints, weights, positions, np.array(poses)


def spec_vertex() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """spec/reduction.md [RF4]'s vertex: joints (A, B, C), weights 0.4, 0.35, 0.25, its
    position (1, 0, 0), and the rest pose's joint matrices."""
    joints = np.array([[0, 1, 2, 0]], dtype=np.uint16)
    weights = np.array([[0.4, 0.35, 0.25, 0.0]], dtype=np.float32)
    positions = np.array([[1.0, 0.0, 0.0]], dtype=np.float32)
    return joints, weights, positions, np.broadcast_to(np.eye(4), (3, 4, 4))


def test_the_spec_vector() -> None:
    # spec/reduction.md [RF4]'s vector: A and B move together, C moves up by 1.
    joints, weights, positions, rest = spec_vertex()
    moved = rest.copy()
    moved[2, 1, 3] = 1.0
    poses = np.array([rest, moved])
    j, w, report = dashvertex.reduce(joints, weights, max_influences=2, fit=True,
                                     positions=positions, poses=poses)
    assert j[0, :2].tolist() == [0, 2]
    assert w[0, :2].tolist() == [np.float32(0.75), np.float32(0.25)]
    assert report.fit["fitted"] == 1 and report.fit["greedy_support"] == 1
    assert report.fit["objective_plain"] == pytest.approx(0.0625)
    assert report.fit["objective_fitted"] == pytest.approx(0.0, abs=1e-12)
    # In unorm8: A 191, C 64.
    j, w, _ = dashvertex.reduce(joints, weights, max_influences=2, quantize="unorm8", fit=True,
                                positions=positions, poses=poses)
    assert (np.rint(w[0, :2] * 255)).astype(int).tolist() == [191, 64]
    # Without fit: the plain top two, A and B.
    j, w, report = dashvertex.reduce(joints, weights, max_influences=2)
    assert j[0, :2].tolist() == [0, 1] and report.fit is None


@pytest.mark.parametrize("k", [4, 2])
@pytest.mark.parametrize("quantize", [None, "unorm8", "unorm16"])
def test_never_worse_than_plain_on_the_poses_given(k: int, quantize: str | None) -> None:
    joints, weights, positions, poses = rig_arrays()
    assert ((weights > 0).sum(axis=1) > k).any()
    pj, pw, _ = dashvertex.reduce(joints, weights, max_influences=k, quantize=quantize)
    fj, fw, report = dashvertex.reduce(joints, weights, max_influences=k, quantize=quantize,
                                       fit=True, positions=positions, poses=poses)
    plain = objective(pj, pw, joints, weights, positions, poses)
    fitted = objective(fj, fw, joints, weights, positions, poses)
    # Per vertex never worse (up to float64 rounding of the two evaluations).
    assert (fitted <= plain * (1 + 1e-9) + 1e-12).all()
    assert fitted.sum() < plain.sum()
    assert report.fit["fitted"] > 0 and report.fit["poses"] == len(poses)
    assert report.fit["objective_fitted"] == pytest.approx(fitted.sum(), rel=1e-4)
    assert ((fw > 0).sum(axis=1) <= k).all()
    if quantize is None:
        assert np.abs(fw.astype(np.float64).sum(axis=1) - 1).max() <= 4 * 2e-7
    else:
        scale = 255 if quantize == "unorm8" else 65535
        q = np.rint(fw.astype(np.float64) * scale)
        assert np.abs(q - fw * scale).max() < 1e-3 and (q.sum(axis=1) == scale).all()


def test_same_output_at_any_thread_count() -> None:
    joints, weights, positions, poses = rig_arrays()
    runs = [dashvertex.reduce(joints, weights, max_influences=2, fit=True, positions=positions,
                              poses=poses, threads=t) for t in (1, 2, 3)]
    for j, w, _ in runs[1:]:
        assert np.array_equal(j, runs[0][0]) and np.array_equal(w.view(np.uint32),
                                                               runs[0][1].view(np.uint32))


def test_a_three_row_matrix_is_the_same_pose() -> None:
    joints, weights, positions, poses = rig_arrays()
    a = dashvertex.reduce(joints, weights, max_influences=2, fit=True, positions=positions,
                          poses=poses)
    b = dashvertex.reduce(joints, weights, max_influences=2, fit=True, positions=positions,
                          poses=np.ascontiguousarray(poses[:, :, :3, :]))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_what_the_fit_needs_is_asked_for() -> None:
    joints, weights, positions, poses = rig_arrays()
    def call(**kw: object) -> None:
        dashvertex.reduce(joints, weights, max_influences=2, **kw)  # type: ignore[arg-type]
    with pytest.raises(dashvertex.DashError, match="needs positions"):
        call(fit=True, poses=poses)
    with pytest.raises(dashvertex.DashError, match="only with fit=True"):
        call(positions=positions, poses=poses)
    with pytest.raises(dashvertex.DashError, match="one matrix per joint index"):
        call(fit=True, positions=positions, poses=poses[:, :2])
    with pytest.raises(dashvertex.DashError, match=r"\(\d+, 3\)"):
        call(fit=True, positions=positions[:-1], poses=poses)
    bad = poses.copy()
    bad[1, 0, 0, 0] = np.nan
    with pytest.raises(dashvertex.DashError, match=r"poses\[1, 0\]"):
        call(fit=True, positions=positions, poses=bad)
    bad = poses.copy()
    bad[0, 1, 3, 0] = 0.5
    with pytest.raises(dashvertex.DashError, match="affine"):
        call(fit=True, positions=positions, poses=bad)
    with pytest.raises(dashvertex.DashError, match="holds no pose"):
        call(fit=True, positions=positions, poses=poses[:0])
    with pytest.raises(dashvertex.DashError, match="unit normalization"):
        call(fit=True, positions=positions, poses=poses, normalize="none")


def test_motion_poses_are_a_second_group_weighed_alike() -> None:
    # spec/reduction.md [RF1]'s vector for groups: the [RF4] vertex, and a pose in which B
    # alone moves up by 0.5.
    joints, weights, positions, rest = spec_vertex()
    c_up = rest.copy()
    c_up[2, 1, 3] = 1.0
    b_up = rest.copy()
    b_up[1, 1, 3] = 0.5

    def fit(**kw: object) -> tuple[np.ndarray, np.ndarray, dashvertex.ReduceReport]:
        return dashvertex.reduce(joints, weights, max_influences=2, fit=True,  # type: ignore[arg-type]
                                 positions=positions, **kw)

    # One group: dropping B is cheapest; A 0.75, C 0.25.
    j, w, report = fit(poses=np.array([rest, c_up, b_up]))
    assert j[0, :2].tolist() == [0, 2] and w[0, :2].tolist() == [np.float32(0.75), np.float32(0.25)]
    assert report.fit["pose_group_weights"] == []
    # The B pose as a second group weighs 0.0625 / (0.5² × (0.46666667 − 0.35)²) ≈ 18.37:
    # A 0.65, B 0.35 are written, the first group's E stays plain's 0.0625.
    j, w, report = fit(poses=np.array([rest, c_up]), motion_poses=np.array([b_up]))
    assert j[0, :2].tolist() == [0, 1]
    assert w[0, :2].tolist() == [np.float32(0.65), np.float32(0.35)]
    weights_ = report.fit["pose_group_weights"]
    assert weights_[0] == 1.0 and weights_[1] == pytest.approx(18.37, rel=1e-3)
    # fit_motion_weight scales the second group: at 0 the first group alone decides.
    j, w, report = fit(poses=np.array([rest, c_up]), motion_poses=np.array([b_up]),
                       fit_motion_weight=0.0)
    assert j[0, :2].tolist() == [0, 2] and report.fit["pose_group_weights"] == [1.0, 0.0]


def test_motion_poses_are_checked_as_poses_are() -> None:
    joints, weights, positions, poses = rig_arrays()
    def call(**kw: object) -> None:
        dashvertex.reduce(joints, weights, max_influences=2, **kw)  # type: ignore[arg-type]
    with pytest.raises(dashvertex.DashError, match="only with fit=True"):
        call(motion_poses=poses)
    with pytest.raises(dashvertex.DashError, match="only with fit=True"):
        call(fit_motion_weight=0.5)
    with pytest.raises(dashvertex.DashError, match="motion_poses has shape"):
        call(fit=True, positions=positions, poses=poses, motion_poses=poses[:, :, :2, :])
    bad = poses.copy()
    bad[1, 0, 0, 0] = np.inf
    with pytest.raises(dashvertex.DashError, match=r"motion_poses\[1, 0\]"):
        call(fit=True, positions=positions, poses=poses, motion_poses=bad)
    with pytest.raises(dashvertex.DashError, match="finite number of at least 0"):
        call(fit=True, positions=positions, poses=poses, motion_poses=poses,
             fit_motion_weight=-1.0)
