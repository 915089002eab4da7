"""Meshopt-compressed glTF from Python (issue 48): `dashvertex.read` of the gltfpack `-c`
fixtures gives the per-vertex influences of the uncompressed files gltfpack wrote from the
same source (fixtures/compressed/README.md: `rs_pack_c.glb` is `rs_pack.glb` compressed,
`rf_pack_c.glb` is `rf_pack.glb`, vertex order kept); `-cc` reorders vertices, so it is
compared as the same set of vertices. `reduce_file` on a compressed file writes plain
influence accessors (no compressed stream left) that both validators accept, and the same
influences as reducing the uncompressed twin."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import dashvertex
from conftest import REPO

COMPRESSED = REPO / "fixtures" / "compressed"
MESHOPT = {"EXT_meshopt_compression", "KHR_meshopt_compression"}
PAIRS = [("rs_pack_c.glb", "rs_pack.glb"), ("rf_pack_c.glb", "rf_pack.glb")]


def glb_json(path: Path) -> dict:
    data = path.read_bytes()
    (length,) = struct.unpack_from("<I", data, 12)
    return json.loads(data[20 : 20 + length])


def influences(path: Path) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per primitive: positions, joints and weights as dashvertex.read gives them."""
    return [(p.positions, p.joints, p.weights) for p in dashvertex.read(path).primitives]


@pytest.mark.parametrize("compressed,plain", PAIRS)
def test_read_of_a_meshopt_file_gives_the_plain_files_influences(compressed, plain):
    c, p = COMPRESSED / compressed, COMPRESSED / plain
    assert MESHOPT & set(glb_json(c).get("extensionsRequired", []))
    assert not MESHOPT & set(glb_json(p).get("extensionsUsed", []))
    got, want = influences(c), influences(p)
    assert len(got) == len(want) > 0
    for (cp, cj, cw), (pp, pj, pw) in zip(got, want):
        assert len(cw) > 0 and (cw.sum(axis=1) > 0).all()
        np.testing.assert_array_equal(cj, pj)
        # Bit for bit: the same float32 weights (dequantized alike).
        assert cw.tobytes() == pw.tobytes()
        np.testing.assert_array_equal(cp, pp)


def test_a_reordering_compression_reads_the_same_vertices():
    # `-cc` (filters) orders vertices otherwise: the same rows, in another order.
    assert MESHOPT & set(glb_json(COMPRESSED / "rs_pack_cc.glb").get("extensionsRequired", []))
    got = influences(COMPRESSED / "rs_pack_cc.glb")
    want = influences(COMPRESSED / "rs_pack.glb")
    assert len(got) == len(want)
    for (cp, cj, cw), (pp, pj, pw) in zip(got, want):
        assert len(cw) == len(pw) > 0
        np.testing.assert_array_equal(rows(cp, cj, cw), rows(pp, pj, pw))


def rows(p: np.ndarray, j: np.ndarray, w: np.ndarray) -> np.ndarray:
    """A primitive's vertices as rows (position, joints, weights), sorted."""
    table = np.concatenate([p.astype(np.float64), j.astype(np.float64), w.astype(np.float64)], axis=1)
    return table[np.lexsort(table.T[::-1])]


def official_errors(path: Path) -> list[str] | None:
    """The official validator's error codes, or None when it is not installed (then
    DASH_REQUIRE_ORACLE fails the test, as the Rust tests' oracle does)."""
    script = REPO / "tools" / "oracle" / "validate.mjs"
    ready = shutil.which("node") and (REPO / "tools" / "oracle" / "node_modules" / "gltf-validator").exists()
    if not ready:
        if os.environ.get("DASH_REQUIRE_ORACLE"):
            pytest.fail("the official validator is required (DASH_REQUIRE_ORACLE) but not installed")
        return None
    out = subprocess.run(["node", str(script), str(path)], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout.splitlines()[0])["report"]
    return [m["code"] for m in report["issues"]["messages"] if m["severity"] == 0]


@pytest.mark.parametrize("compressed,plain", PAIRS)
def test_reduce_file_on_a_meshopt_file_writes_plain_accessors_the_validators_accept(
    tmp_path, compressed, plain
):
    out = tmp_path / "reduced.glb"
    done = dashvertex.reduce_file(COMPRESSED / compressed, out, max_influences=2)
    assert done.written
    doc = glb_json(out)
    # No compressed stream left that a viewer would decode instead of the new accessors.
    assert not MESHOPT & set(doc.get("extensionsUsed", []))
    for mesh in doc["meshes"]:
        for prim in mesh["primitives"]:
            for name, index in prim["attributes"].items():
                view = doc["bufferViews"][doc["accessors"][index]["bufferView"]]
                assert not MESHOPT & set(view.get("extensions", {})), name
    report = dashvertex.validate(out)
    assert report.valid and not report.errors, [d.code for d in report.errors]
    errors = official_errors(out)
    if errors is not None:
        assert errors == []
    # The same influences as reducing the uncompressed twin.
    twin = tmp_path / "twin.glb"
    dashvertex.reduce_file(COMPRESSED / plain, twin, max_influences=2)
    for (_, cj, cw), (_, pj, pw) in zip(influences(out), influences(twin)):
        assert cw.shape[1] == 4 and (np.count_nonzero(cw, axis=1) <= 2).all()
        np.testing.assert_array_equal(cj, pj)
        assert cw.tobytes() == pw.tobytes()
