"""dashvertex.read: arrays equal an independent decoding of every glTF in the corpus,
DashVertex files read, numpy owns the arrays, bytes and paths agree."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import dashvertex
from conftest import DASH_FILES, GLTF_FILES, REPO
from gltf_decode import Document

SEEN_LAYOUTS: set[str] = set()
COMPARED: list[str] = []


REFUSED: list[str] = []


def _read_or_none(path: Path):
    try:
        return dashvertex.read(path)
    except dashvertex.DashError as e:
        # Refused with a reason (a broken vector, attributes that match two bones).
        assert e.code and e.file == str(path)
        REFUSED.append(str(path))
        return None


@pytest.mark.parametrize("path", GLTF_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_arrays_equal_an_independent_decoding(path: Path) -> None:
    model = _read_or_none(path)
    if model is None:
        return
    doc = Document(path)
    used = set(doc.json.get("extensionsUsed", []))
    if used & {"EXT_meshopt_compression", "KHR_meshopt_compression"}:
        # dash decodes the meshopt streams (the Rust tests hold that to meshoptimizer's own
        # decoder); this independent reader does not: the data are there, not zeros.
        for p in model.primitives:
            assert np.isfinite(p.positions).all() and np.abs(p.positions).sum() > 0
            assert (p.weights.sum(axis=1) > 0).all()
        return
    for p in model.primitives:
        prim = doc.json["meshes"][p.mesh]["primitives"][p.primitive]
        attrs = prim["attributes"]
        n = len(p)
        if "POSITION" in attrs:
            np.testing.assert_array_equal(p.positions, doc.positions(attrs["POSITION"]))
        assert p.positions.dtype == np.float32 and p.positions.shape == (n, 3)
        assert p.joints.dtype == np.uint16 and p.weights.dtype == np.float32
        assert p.joints.shape == p.weights.shape == (n, 4 * p.sets)
        assert len(p.set_numbers) == p.sets
        for s, number in enumerate(p.set_numbers):
            j = doc.joints(attrs[f"JOINTS_{number}"])
            w = doc.weights(attrs[f"WEIGHTS_{number}"])
            np.testing.assert_array_equal(p.joints[:, 4 * s : 4 * s + 4].astype(np.int64), j)
            # Bit for bit: the same float32 values, zeros' signs included.
            assert p.weights[:, 4 * s : 4 * s + 4].tobytes() == w.tobytes()
        if p.skin is not None:
            skin = doc.json["skins"][p.skin]
            assert p.bones is not None and len(p.bones) == len(skin["joints"])
    SEEN_LAYOUTS.update(doc.layouts)
    COMPARED.append(str(path))


def write_sparse_skin(path: Path) -> None:
    """A skinned glTF the corpus lacks: sparse JOINTS_0 (u8, strided base) and sparse
    WEIGHTS_0 (unorm16) over a base, and a sparse-only WEIGHTS_1 / JOINTS_1 pair (no
    buffer view)."""
    n = 6
    pos = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    joints = np.zeros((n, 8), dtype=np.uint8)  # stride 8: 4 bytes of joints, 4 of padding
    joints[:, :4] = [[0, 1, 0, 0]] * n
    weights = np.tile(np.array([65535, 0, 0, 0], dtype=np.uint16), (n, 1))
    sp_idx = np.array([1, 4], dtype=np.uint16)
    sp_j = np.array([[1, 2, 3, 0], [2, 0, 1, 0]], dtype=np.uint8)
    sp_w = np.array([[30000, 20000, 15535, 0], [65535, 0, 0, 0]], dtype=np.uint16)
    sp1_idx = np.array([2], dtype=np.uint8)
    sp1_j = np.array([[3, 0, 0, 0]], dtype=np.uint8)
    sp1_w = np.array([[0.0, 0.0, 0.0, 0.0]], dtype=np.float32)
    parts = [pos.tobytes(), joints.tobytes(), weights.tobytes(), sp_idx.tobytes(), sp_j.tobytes(),
             sp_w.tobytes(), sp1_idx.tobytes() + b"\0\0\0", sp1_j.tobytes(), sp1_w.tobytes()]
    views, blob = [], b""
    for k, part in enumerate(parts):
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(part)})
        blob += part + b"\0" * (-len(part) % 4)
    views[1]["byteStride"] = 8
    import base64 as b64
    doc = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64," + b64.b64encode(blob).decode()}],
        "bufferViews": views,
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
             "min": pos.min(0).tolist(), "max": pos.max(0).tolist()},
            {"bufferView": 1, "componentType": 5121, "count": n, "type": "VEC4",
             "sparse": {"count": 2, "indices": {"bufferView": 3, "componentType": 5123}, "values": {"bufferView": 4}}},
            {"bufferView": 2, "componentType": 5123, "normalized": True, "count": n, "type": "VEC4",
             "sparse": {"count": 2, "indices": {"bufferView": 3, "componentType": 5123}, "values": {"bufferView": 5}}},
            {"componentType": 5121, "count": n, "type": "VEC4",
             "sparse": {"count": 1, "indices": {"bufferView": 6, "componentType": 5121}, "values": {"bufferView": 7}}},
            {"componentType": 5126, "count": n, "type": "VEC4",
             "sparse": {"count": 1, "indices": {"bufferView": 6, "componentType": 5121}, "values": {"bufferView": 8}}},
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "JOINTS_1": 3, "WEIGHTS_1": 4}}]}],
        "nodes": [{"mesh": 0, "skin": 0}, {"name": "a", "children": [2]}, {"name": "b", "children": [3]}, {"name": "c", "children": [4]}, {"name": "d"}],
        "skins": [{"joints": [1, 2, 3, 4]}],
        "scenes": [{"nodes": [0, 1]}],
    }
    path.write_text(json.dumps(doc))


def test_sparse_accessors(tmp_path: Path) -> None:
    path = tmp_path / "sparse-skin.gltf"
    write_sparse_skin(path)
    test_arrays_equal_an_independent_decoding(path)
    (p,) = dashvertex.read(path).primitives
    assert p.joints[1, :4].tolist() == [1, 2, 3, 0]
    assert p.weights[1, 0] == np.float32(30000 / 65535)
    assert p.joints[2, 4] == 3 and p.joints[3, 4] == 0


def test_every_accessor_layout_was_compared() -> None:
    # Runs after the other cases of this file (file order): together they must cover
    # each layout.
    if not COMPARED:
        for path in GLTF_FILES:
            test_arrays_equal_an_independent_decoding(path)
    wanted = {"stride", "sparse", "weights-unorm8", "weights-unorm16", "weights-float", "joints-u8", "joints-u16"}
    assert wanted <= SEEN_LAYOUTS, f"not covered: {wanted - SEEN_LAYOUTS}"
    assert len(set(COMPARED)) >= 30
    # Refusals are the exception: most of the corpus reads.
    assert len(set(REFUSED)) < len(set(COMPARED)) / 2


def test_numpy_owns_the_buffers_without_a_copy() -> None:
    m = dashvertex.read(REPO / "fixtures/corpus/gltf/khronos_samples/CesiumMan.glb")
    p = m.primitives[0]
    for a in (p.positions, p.joints, p.weights):
        # The Rust vector moved into numpy: numpy does not own a copy of it.
        assert not a.flags["OWNDATA"] and a.base is not None
        assert a.flags["C_CONTIGUOUS"]
    assert m.format == "glb" and m.bones is not None and len(m.skins) == 1
    assert m.bones.names == p.bones.names
    assert all(q is None or 0 <= q < len(m.bones) for q in m.bones.parents)


def test_bytes_and_paths_agree() -> None:
    path = REPO / "fixtures/corpus/gltf/khronos_samples/RiggedFigure.glb"
    a = dashvertex.read(path).primitives
    b = dashvertex.read(path.read_bytes()).primitives
    c = dashvertex.read(os.fspath(path)).primitives
    for x, y, z in zip(a, b, c):
        for name in ("positions", "joints", "weights"):
            assert np.array_equal(getattr(x, name), getattr(y, name))
            assert np.array_equal(getattr(x, name), getattr(z, name))


def test_gltf_bytes_with_an_external_buffer_are_refused(tmp_path: Path) -> None:
    gltf = REPO / "fixtures/corpus/gltf/blenderio/03_skinned_cylinder/03_skinned_cylinder.gltf"
    assert dashvertex.read(gltf).primitives  # beside its .bin, it reads
    with pytest.raises(dashvertex.FormatError) as e:
        dashvertex.read(gltf.read_bytes())
    assert e.value.code == "EXTERNAL_BUFFER"
    assert e.value.pointer == "/buffers/0"
    assert "path" in str(e.value)


@pytest.mark.parametrize("path", DASH_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_dashvertex_files(path: Path) -> None:
    try:
        m = dashvertex.read(path)
    except dashvertex.DashError as e:
        assert e.code in {"DECODE", "FORMAT_UNKNOWN", "EMPTY_INPUT", "LIMIT"}
        assert not dashvertex.validate(path).valid
        return
    assert m.format in {"json", "dmx", "raw"}
    (p,) = m.primitives
    assert p.joints.dtype in (np.uint16, np.uint32)
    assert p.joints.shape == p.weights.shape == (len(p), 4 * p.sets)


def test_dashvertex_json_values() -> None:
    path = REPO / "spec/vectors/json/document-multiset.json"
    doc = json.loads(path.read_text())
    (p,) = dashvertex.read(path).primitives
    assert p.sets == 2
    v0 = doc["vertex"][0]
    assert p.joints[0].tolist() == v0["skinIndex"] + v0["skinSets"][0]["skinIndex"] + [0, 0]
    assert p.weights[0].tolist() == pytest.approx(v0["skinWeight"] + v0["skinSets"][0]["skinWeight"] + [0, 0])
    assert p.weights.dtype == np.float32
    np.testing.assert_array_equal(p.weights[0, :4], np.array(v0["skinWeight"], dtype=np.float32))
    m = dashvertex.read(path)
    assert m.bones is not None and m.bones.names == [b["name"] for b in doc["bone"]]
    assert m.bones.parents == [b.get("parentIndex") for b in doc["bone"]]


def test_wide_bone_indices_come_as_uint32(tmp_path: Path) -> None:
    f = tmp_path / "wide.json"
    f.write_text(json.dumps([{"x": 0, "y": 0, "z": 0, "skinIndex": [70000], "skinWeight": [1]}]))
    (p,) = dashvertex.read(f).primitives
    assert p.joints.dtype == np.uint32 and p.joints[0, 0] == 70000


def test_same_arrays_at_any_thread_count() -> None:
    path = REPO / "fixtures/blender/rig24_all.glb"
    one = dashvertex.read(path, threads=1).primitives
    many = dashvertex.read(path, threads=4).primitives
    for a, b in zip(one, many):
        assert a.weights.tobytes() == b.weights.tobytes()
        assert a.joints.tobytes() == b.joints.tobytes()
