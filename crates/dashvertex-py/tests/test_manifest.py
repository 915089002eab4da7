"""dashvertex.Manifest: the numbering of `dashvertex manifest`."""

from __future__ import annotations

from pathlib import Path

import pytest

import dashvertex
from conftest import REPO, run


def test_assign_is_append_only(tmp_path: Path) -> None:
    m = dashvertex.Manifest()
    assert m.assign([("root", None), ("arm", "root"), ("leg", "root")]) == [0, 1, 2]
    # A new bone gets the next index; the others keep theirs, whatever the order asked.
    assert m.assign(["leg", "hand", "root"]) == [2, 3, 0]
    assert m.index("hand") == 3 and "arm" in m and len(m) == 4
    with pytest.raises(KeyError):
        m.index("tail")
    before = m.to_json()
    with pytest.raises(dashvertex.ManifestError, match="tail"):
        m.assign(["tail"], locked=True)
    assert m.to_json() == before  # a refused locked change leaves it as it was
    # Parents are part of what a locked manifest holds: the same parent changes nothing.
    assert m.assign([("arm", "root")], locked=True) == [1]
    path = tmp_path / "m.json"
    m.save(path)
    assert path.read_text() == before
    assert dashvertex.Manifest.load(path) == m


def test_same_numbering_as_the_cli(dashvertex_cli: Path, tmp_path: Path) -> None:
    rig = REPO / "fixtures/blender/rig24_all.glb"
    out = tmp_path / "rig.manifest.json"
    assert run([dashvertex_cli, "manifest", "init", rig, "-o", out]).returncode == 0
    bones = dashvertex.read(rig).bones
    pairs = [(n, None if p is None else bones.names[p]) for n, p in zip(bones.names, bones.parents)]
    m = dashvertex.Manifest()
    m.assign(pairs)
    assert m.to_json() == out.read_text()


def test_diff_lists_what_moved(dashvertex_cli: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for rig, out in (("rig24_all.glb", a), ("rig25_all.glb", b)):
        run([dashvertex_cli, "manifest", "init", REPO / "fixtures/blender" / rig, "-o", out])
    cli = run([dashvertex_cli, "manifest", "diff", a, b])
    diffs = dashvertex.Manifest.load(a).diff(dashvertex.Manifest.load(b))
    assert diffs and all(str(d) in cli.stdout.decode() for d in diffs)
    assert {d.kind for d in diffs} <= {"added", "renamed", "moved", "retired", "brought_back", "removed"}


def test_bad_manifests_are_located(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "bones": [{"index": 0, "name": "a"}, {"index": 1, "name": "a"}]}')
    with pytest.raises(dashvertex.ManifestError) as e:
        dashvertex.Manifest.load(bad)
    assert e.value.pointer == "/bones/1/name" and e.value.file == str(bad)
    with pytest.raises(dashvertex.DashIOError) as e:
        dashvertex.Manifest.load(tmp_path / "none.json")
    assert e.value.code == "IO_ERROR"


@pytest.mark.parametrize("blank", ["", " ", "\t"])
def test_a_blank_bone_name_is_refused_and_nothing_changes(tmp_path: Path, blank: str) -> None:
    m = dashvertex.Manifest()
    m.assign(["root"])
    before = m.to_json()
    with pytest.raises(dashvertex.ManifestError, match="bone 1 of the skeleton"):
        m.assign(["root", blank])
    assert m.to_json() == before
    path = tmp_path / "m.json"
    m.save(path)
    assert dashvertex.Manifest.load(path) == m


def test_a_fifo_manifest_is_refused_at_once(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "m.json"
    os.mkfifo(fifo)  # no writer: a load that waited would never return
    with pytest.raises(dashvertex.DashIOError, match="FIFO"):
        dashvertex.Manifest.load(fifo)
