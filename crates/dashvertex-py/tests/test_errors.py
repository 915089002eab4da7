"""Bad bytes raise DashError with a code and a location; nothing crashes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import dashvertex
from conftest import GLTF_FILES, REPO

HOSTILE = [
    b"",
    b"\x00" * 7,
    b"garbage",
    b"{",
    b"[1, 2",
    b'{"asset": {"version": "2.0"}, "meshes": 5}',
    b"glTF\x02\x00\x00\x00\xff\xff\xff\xff",
    b"DMX\x00" + b"\xff" * 60,
    b"\xef\xbb\xbf{}",
]


@pytest.mark.parametrize("data", HOSTILE)
def test_hostile_bytes_raise_dash_error(data: bytes) -> None:
    with pytest.raises(dashvertex.DashError) as e:
        dashvertex.read(data)
    assert isinstance(e.value.code, str) and e.value.code
    assert e.value.file == "<bytes>"
    # The validator reports instead of raising.
    assert not dashvertex.validate(data).valid


def test_truncated_and_flipped_files_never_crash() -> None:
    rng = random.Random(27)
    files = [p for p in GLTF_FILES if p.suffix == ".glb"][:8]
    for path in files:
        data = path.read_bytes()
        for _ in range(25):
            cut = bytearray(data[: rng.randrange(len(data) + 1)])
            for _ in range(rng.randrange(4)):
                if cut:
                    cut[rng.randrange(len(cut))] = rng.randrange(256)
            try:
                dashvertex.read(bytes(cut))
            except dashvertex.DashError as e:
                assert e.code
            dashvertex.validate(bytes(cut))


def test_locations_are_data() -> None:
    with pytest.raises(dashvertex.FormatError) as e:
        dashvertex.read(b'[{"x": 0, "y": 0, "z": 0, "skinIndex": [-1], "skinWeight": [1]}]')
    assert e.value.code == "DECODE" and e.value.pointer is not None
    assert e.value.location is not None and e.value.pointer in e.value.location


def test_io_errors(tmp_path: Path) -> None:
    with pytest.raises(dashvertex.DashIOError) as e:
        dashvertex.read(tmp_path / "missing.glb")
    assert e.value.code == "IO_ERROR" and isinstance(e.value, dashvertex.DashError)
    with pytest.raises(dashvertex.DashIOError):
        dashvertex.read(tmp_path)
    with pytest.raises(dashvertex.OptionError, match="source"):
        dashvertex.read(42)  # type: ignore[arg-type]
    with pytest.raises(dashvertex.DashIOError):
        dashvertex.read(REPO / "spec/vectors/gltf/buffer-missing-file.gltf")
