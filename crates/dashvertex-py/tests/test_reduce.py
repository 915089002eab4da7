"""dashvertex.reduce: the bits of `dashvertex reduce`, and the reducer's properties on
random arrays (hypothesis)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dashvertex
from conftest import run


def write_dash_json(path: Path, joints: np.ndarray, weights: np.ndarray) -> None:
    """The arrays as a DashVertex JSON vertex array (no skeleton): set 0 in
    skinIndex/skinWeight, later sets in skinSets."""
    verts = []
    for j, w in zip(joints.tolist(), weights.tolist()):
        v = {"x": 0, "y": 0, "z": 0, "skinIndex": j[:4], "skinWeight": w[:4]}
        rest = [{"skinIndex": j[k : k + 4], "skinWeight": w[k : k + 4]} for k in range(4, len(j), 4)]
        if rest:
            v["skinSets"] = rest
        verts.append(v)
    # repr of a float32's double is exact: the file holds the arrays' values.
    path.write_text(json.dumps(verts))


CLI_CASES = [
    dict(max_influences=4, normalize="unit"),
    dict(max_influences=2, normalize="unit", quantize="unorm8"),
    dict(max_influences=8, normalize="unit", quantize="unorm16", min_weight=0.05),
    dict(max_influences=3, normalize="none"),
]


@pytest.mark.parametrize("opts", CLI_CASES, ids=[str(i) for i in range(len(CLI_CASES))])
def test_same_bits_as_the_cli(dashvertex_cli: Path, tmp_path: Path, opts: dict) -> None:
    rng = np.random.default_rng(27)
    n, cols = 500, 12
    joints = rng.integers(0, 40, size=(n, cols), dtype=np.uint16)
    weights = rng.random((n, cols), dtype=np.float32)
    if opts["normalize"] == "none":
        weights /= np.float32(cols)
    weights[rng.random((n, cols)) < 0.2] = 0
    src, out = tmp_path / "in.json", tmp_path / "out.json"
    write_dash_json(src, joints, weights)
    flags = ["--max-influences", opts["max_influences"], "--normalize", opts["normalize"], "--empty", "zero"]
    if "quantize" in opts:
        flags += ["--quantize", opts["quantize"]]
    if "min_weight" in opts:
        flags += ["--min-weight", opts["min_weight"]]
    cli = run([dashvertex_cli, "reduce", src, "-o", out, "-q", *flags])
    assert cli.returncode == 0, cli.stderr
    (expected,) = dashvertex.read(out).primitives
    j, w, report = dashvertex.reduce(joints, weights, empty="zero", **opts)
    assert report.vertices == n
    sets = expected.sets
    assert j.shape[1] == 4 * -(-opts["max_influences"] // 4) >= 4 * sets
    assert report.sets == sets
    np.testing.assert_array_equal(j[:, : 4 * sets], expected.joints)
    assert w[:, : 4 * sets].tobytes() == expected.weights.tobytes()
    # Whatever the file did not store is empty.
    assert not w[:, 4 * sets :].any()


def test_dense_per_bone_matrix() -> None:
    rng = np.random.default_rng(5)
    dense = rng.random((200, 30), dtype=np.float32)
    dense[dense < 0.6] = 0
    dense[:, 0] += np.float32(0.01)  # no empty vertex
    j, w, report = dashvertex.reduce(None, dense, max_influences=4)
    assert j.shape == w.shape == (200, 4)
    for v in range(200):
        top = np.argsort(-dense[v], kind="stable")[:4]
        kept = {int(b) for b, x in zip(j[v], w[v]) if x > 0}
        strongest = {int(b) for b in top if dense[v, b] > 0}
        assert kept == strongest
    # The same through influence sets (column b is bone b).
    cols = np.tile(np.arange(30, dtype=np.uint16), (200, 1))
    j2, w2, _ = dashvertex.reduce(cols, dense, max_influences=4)
    assert np.array_equal(j, j2) and w.tobytes() == w2.tobytes()
    assert report.dropped_over_limit > 0
    # The matrix is copied out by groups of columns, per thread, 128 rows at a time:
    # every layout and thread count reads the same weights (30 columns: groups of 16 + 14
    # on one thread, 10 on three; 200 rows: a full block and a short one; Fortran order
    # copies each column whole, and a strided view goes through the general path).
    wide = np.zeros((200, 60), dtype=np.float32)
    wide[:, ::2] = dense
    for m, threads in (
        (dense, 1),
        (dense, 3),
        (np.asfortranarray(dense), None),
        (wide[:, ::2], None),
        (dense[:, :17], 2),
    ):
        want = (j, w)
        if m.shape[1] != 30:
            want = dashvertex.reduce(None, np.ascontiguousarray(m), max_influences=4)[:2]
        got = dashvertex.reduce(None, m, max_influences=4, threads=threads)
        assert np.array_equal(got[0], want[0]) and got[1].tobytes() == want[1].tobytes()


influence_arrays = st.integers(1, 40).flatmap(
    lambda n: st.integers(1, 11).flatmap(
        lambda c: st.tuples(
            hnp.arrays(np.uint16, (n, c), elements=st.integers(0, 20)),
            hnp.arrays(np.float32, (n, c), elements=st.floats(0, 1, width=32)),
        )
    )
)


@settings(max_examples=150, deadline=None)
@given(influence_arrays, st.integers(1, 9), st.sampled_from([None, "unorm8", "unorm16"]))
def test_properties(arrays, k: int, quantize) -> None:
    joints, weights = arrays
    j, w, report = dashvertex.reduce(
        joints, weights, max_influences=k, quantize=quantize, empty="zero"
    )
    n = joints.shape[0]
    assert j.shape == w.shape == (n, 4 * -(-k // 4))
    assert report.vertices == n
    for v in range(n):
        live = w[v] > 0
        # At most K influences, on bones the vertex had, each bone once.
        assert live.sum() <= k
        had = {int(b) for b, x in zip(joints[v], weights[v]) if x > 0}
        assert {int(b) for b in j[v][live]} <= had
        assert len(set(j[v][live].tolist())) == live.sum()
        if live.any():
            if quantize:
                full = 255 if quantize == "unorm8" else 65535
                ints = np.rint(w[v].astype(np.float64) * full)
                assert ints.sum() == full
            else:
                assert abs(float(w[v].astype(np.float64).sum()) - 1) < 2e-7 * max(1, live.sum())
    # The same bits on one thread and on several.
    j1, w1, _ = dashvertex.reduce(joints, weights, max_influences=k, quantize=quantize, empty="zero", threads=1)
    assert np.array_equal(j, j1) and w.tobytes() == w1.tobytes()


def test_input_dtypes_and_layouts() -> None:
    rng = np.random.default_rng(1)
    joints = rng.integers(0, 10, size=(50, 8))
    weights = rng.random((50, 8)) + 0.01
    ref = dashvertex.reduce(joints.astype(np.uint16), weights.astype(np.float32))
    for jj in (joints, joints.astype(np.uint8), joints.astype(np.uint32), np.asfortranarray(joints)):
        out = dashvertex.reduce(jj, weights)  # float64 weights are rounded to float32
        assert np.array_equal(out[0], ref[0]) and np.array_equal(out[1], ref[1])
    # Strided views are read in place.
    wide_j = np.zeros((50, 16), dtype=np.uint16)
    wide_w = np.zeros((50, 16), dtype=np.float32)
    wide_j[:, ::2], wide_w[:, ::2] = joints, weights
    out = dashvertex.reduce(wide_j[:, ::2], wide_w[:, ::2])
    assert np.array_equal(out[0], ref[0]) and np.array_equal(out[1], ref[1])


def test_refusals_name_the_keyword() -> None:
    j = np.zeros((2, 4), dtype=np.uint16)
    w = np.full((2, 4), 0.25, dtype=np.float32)
    cases = [
        (dict(max_influences=0), "max_influences"),
        (dict(max_influences=5000), "max_influences"),
        (dict(quantize="unorm8", normalize="none"), "normalize='unit'"),
        (dict(min_weight=-1.0), "min_weight"),
        (dict(normalize="sum"), "normalize"),
        (dict(quantize="f16"), "quantize"),
        (dict(empty="nearest"), "empty"),
    ]
    for kw, word in cases:
        with pytest.raises(dashvertex.OptionError) as e:
            dashvertex.reduce(j, w, **kw)
        assert word in str(e.value) and e.value.code == "OPTION"
        assert "--" not in str(e.value)
    with pytest.raises(dashvertex.OptionError, match="shape"):
        dashvertex.reduce(j, w[:, :3])
    with pytest.raises(dashvertex.OptionError, match="bone index"):
        dashvertex.reduce(np.full((2, 4), -1), w)
    with pytest.raises(dashvertex.ReduceError) as e:
        dashvertex.reduce(j, np.zeros((2, 4), dtype=np.float32))
    assert e.value.vertex == 0 and "empty='zero'" in str(e.value)
    with pytest.raises(dashvertex.ReduceError, match="finite"):
        dashvertex.reduce(j, np.full((2, 4), np.nan, dtype=np.float32))
    with pytest.raises(dashvertex.ReduceError, match="normalize='unit'"):
        dashvertex.reduce(j, np.full((2, 4), 2.0, dtype=np.float32), normalize="none")
