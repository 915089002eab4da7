"""dashvertex.validate: the same report as dash-validate, but for the advice, which names
the package's functions and keywords where the command's names its flags."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import dashvertex
from conftest import DASH_FILES, GLTF_FILES, REPO, run

FILES = GLTF_FILES + DASH_FILES

CASES = [
    ([], {}),
    (["--profile", "gltf"], {"profile": "gltf"}),
    (["--target", "threejs"], {"target": "threejs"}),
]


def without_help(report: bytes) -> dict:
    """A JSON report with every diagnostic's help taken out (each side words its own)."""
    doc = json.loads(report)
    for f in doc["files"]:
        for d in f["diagnostics"]:
            d.pop("help", None)
    return doc


def test_advice_names_the_package_not_the_command_line() -> None:
    # spec/validation.md: the help is worded by the front end that shows it.
    report = dashvertex.validate(REPO / "spec/vectors/gltf/weights-non-normalized.gltf")
    helps = {d.help for d in report.diagnostics if d.code == "WEIGHT_SUM"}
    assert (
        "renormalize: `dashvertex.fix_file(path, output)` (or `normalize=\"unit\"` when reducing)"
        in helps
    ), helps
    for d in report.diagnostics:
        assert "--" not in (d.help or ""), d.help
    zero = dashvertex.validate(REPO / "spec/vectors/gltf/weights-all-zero.gltf")
    texts = [d.help or "" for d in zero.diagnostics]
    assert any('zero_sum="nearest"' in t for t in texts), texts


@pytest.mark.parametrize("flags,kw", CASES, ids=["default", "gltf", "threejs"])
def test_to_json_is_the_cli_report(dash_validate: Path, flags: list, kw: dict) -> None:
    checked = 0
    for path in FILES:
        # The same name both ways: the report names the file as given.
        name = os.path.relpath(path, REPO)
        cli = run([dash_validate, "--format", "json", *flags, name], cwd=REPO)
        assert cli.returncode in (0, 1), (name, cli.stderr)
        cwd = os.getcwd()
        os.chdir(REPO)
        try:
            report = dashvertex.validate(name, **kw)
        finally:
            os.chdir(cwd)
        assert without_help(report.to_json().encode()) == without_help(cli.stdout), name
        assert report.valid == (cli.returncode == 0)
        checked += 1
    assert checked == len(FILES) > 100


def test_bytes_report_matches_stdin(dash_validate: Path) -> None:
    path = REPO / "spec/vectors/gltf/joints-duplicate.gltf"
    cli = run([dash_validate, "--format", "json", "-"], input=path.read_bytes())
    report = dashvertex.validate(path.read_bytes(), name="<stdin>")
    assert without_help(report.to_json().encode()) == without_help(cli.stdout)


def test_manifest_and_locked(dash_validate: Path, tmp_path: Path, dashvertex_cli: Path) -> None:
    manifest = tmp_path / "rig.manifest.json"
    rig24 = REPO / "fixtures/blender/rig24_all.glb"
    rig25 = REPO / "fixtures/blender/rig25_all.glb"
    made = run([dashvertex_cli, "manifest", "init", rig24, "-o", manifest])
    assert made.returncode == 0, made.stderr
    for locked in (False, True):
        flags = ["--locked"] if locked else []
        cli = run([dash_validate, "--format", "json", "--manifest", manifest, *flags, rig25])
        for m in (manifest, str(manifest), dashvertex.Manifest.load(manifest)):
            r = dashvertex.validate(rig25, manifest=m, locked=locked)
            assert without_help(r.to_json().encode()) == without_help(cli.stdout)
        codes = {d.code for d in r.diagnostics}
        assert "JOINT_ORDER" in codes
        assert r.valid == (not locked)


def test_report_fields() -> None:
    r = dashvertex.validate(REPO / "spec/vectors/gltf/joints-duplicate.gltf")
    assert not r.valid and not bool(r)
    doc = json.loads(r.to_json())["files"][0]
    assert [d.code for d in r.diagnostics] == [d["code"] for d in doc["diagnostics"]]
    assert len(r.errors) == sum(d["severity"] == "error" for d in doc["diagnostics"])
    assert len(r.warnings) == sum(d["severity"] == "warning" for d in doc["diagnostics"])
    for d, j in zip(r.diagnostics, doc["diagnostics"]):
        assert d.severity == j["severity"] and d.message == j["message"]
        assert d.vertex == j["location"].get("vertex")
        assert d.pointer == j["location"].get("pointer")
        assert d.khronos == j.get("khronos", [])
    assert r.codes == doc["codes"] and r.format == "gltf"


def test_bad_options_raise() -> None:
    path = REPO / "examples/rig.json"
    with pytest.raises(dashvertex.OptionError, match="profile"):
        dashvertex.validate(path, profile="strict")
    with pytest.raises(dashvertex.OptionError, match="target"):
        dashvertex.validate(path, target="notanengine")
    with pytest.raises(dashvertex.OptionError, match="manifest"):
        dashvertex.validate(path, locked=True)
    with pytest.raises(dashvertex.ManifestError) as e:
        dashvertex.validate(path, manifest=b'{"version": 1, "bones": [{"index": 3, "name": "a"}]}')
    assert e.value.code == "MANIFEST" and e.value.pointer == "/bones/0/index"
    assert "threejs" in dashvertex.targets()


def test_a_missing_file_is_reported_like_the_cli(dash_validate: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.glb"
    cli = run([dash_validate, "--format", "json", missing])
    assert cli.returncode == 2
    r = dashvertex.validate(missing)
    assert not r.valid and "IO_ERROR" in r.codes
    assert without_help(r.to_json().encode()) == without_help(cli.stdout)
