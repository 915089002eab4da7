"""The file functions are the commands: the same files through `reduce_file`, `fix_file`
and `remap_file` and through `dashvertex reduce/fix/remap` give the same bytes, the same
manifest, the same reports; refusals raise the exception of their kind, worded with the
Python keywords."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import dashvertex
from conftest import REPO, run

SEED = REPO / "fixtures/blender/rig_per_bone_attributes.gltf"
LOSS_RIG = REPO / "fixtures/blender/loss_rig.glb"
LOSS_RIG_STATIC = REPO / "fixtures/blender/loss_rig_static.glb"
THREE_FAULTS = REPO / "crates/dashvertex-cli/tests/cases/data/fix-three-faults.json"
RIG24 = REPO / "fixtures/blender/rig24_all.glb"


def _cli(cli: Path, *args) -> None:
    out = run([cli, *args])
    assert out.returncode == 0, out.stderr.decode()


@pytest.mark.parametrize(
    "name,options,flags",
    [
        ("rig.json", dict(max_influences=4), ["--max-influences", "4"]),
        ("rig.glb", dict(max_influences=2), ["--max-influences", "2"]),
        ("rig.dmx", dict(max_influences=3, normalize="unit"), ["--max-influences", "3", "--normalize", "unit"]),
        ("rig.gltf", dict(max_influences=4, quantize="unorm8"), ["--max-influences", "4", "--quantize", "unorm8"]),
    ],
)
def test_reduce_file_writes_the_bytes_the_command_writes(tmp_path, dashvertex_cli, name, options, flags):
    py, cli = tmp_path / "py", tmp_path / "cli"
    py.mkdir()
    cli.mkdir()
    done = dashvertex.reduce_file(SEED, py / name, manifest=py / "m.json", **options)
    _cli(dashvertex_cli, "reduce", SEED, "-o", cli / name, "--manifest", cli / "m.json", *flags)
    assert done.written
    assert (py / name).read_bytes() == (cli / name).read_bytes()
    assert (py / "m.json").read_bytes() == (cli / "m.json").read_bytes()
    if name.endswith(".gltf"):
        assert (py / "rig.bin").read_bytes() == (cli / "rig.bin").read_bytes()
    assert done.manifest_changes, "a new manifest numbers every bone"
    assert any(level == "info" and text.startswith("reduced ") for level, text in done.messages)


def test_reduce_file_report_is_the_commands_report(tmp_path, dashvertex_cli):
    done = dashvertex.reduce_file(LOSS_RIG, tmp_path / "py.glb", max_influences=2, report=True)
    _cli(dashvertex_cli, "reduce", LOSS_RIG, "-o", tmp_path / "cli.glb", "--max-influences", "2",
         "--report", tmp_path / "cli.json")
    assert (tmp_path / "py.glb").read_bytes() == (tmp_path / "cli.glb").read_bytes()
    cli = json.loads((tmp_path / "cli.json").read_text())
    mine = done.report
    assert mine is not None
    # Only the output's name differs.
    assert mine["output"].endswith("py.glb") and cli["output"].endswith("cli.glb")
    mine["output"] = cli["output"] = ""
    assert mine == cli
    assert mine["displacement"]["primitives"][0]["max"] > 0
    assert not (tmp_path / "py.json").exists()


def test_reduce_file_report_of_an_unanimated_model_is_over_the_range_of_motion_poses(
        tmp_path, dashvertex_cli):
    # No animation: measured over the range-of-motion poses (spec/reduction.md 4), labelled,
    # not "0 at the rest pose"; the same report as the command's.
    done = dashvertex.reduce_file(LOSS_RIG_STATIC, tmp_path / "py.glb", max_influences=1,
                                  report=True)
    _cli(dashvertex_cli, "reduce", LOSS_RIG_STATIC, "-o", tmp_path / "cli.glb",
         "--max-influences", "1", "--report", tmp_path / "cli.json")
    cli = json.loads((tmp_path / "cli.json").read_text())
    mine = done.report
    assert mine is not None
    mine["output"] = cli["output"] = ""
    assert mine == cli
    p = mine["displacement"]["primitives"][0]
    assert p["poseSet"] == "rangeOfMotion"
    assert p["max"] > 0 and p["maxOfDiagonal"] == p["max"] / p["diagonal"]
    assert mine["note"].startswith("displacement over the range-of-motion poses")


def test_reduce_file_max_error_chooses_the_commands_k(tmp_path, dashvertex_cli):
    done = dashvertex.reduce_file(LOSS_RIG, tmp_path / "py.glb", max_influences=8, max_error=0.05)
    _cli(dashvertex_cli, "reduce", LOSS_RIG, "-o", tmp_path / "cli.glb", "--max-influences", "8",
         "--max-error", "0.05")
    assert (tmp_path / "py.glb").read_bytes() == (tmp_path / "cli.glb").read_bytes()
    assert done.max_influences is not None and 1 <= done.max_influences <= 8


def test_a_locked_manifest_refuses_a_new_bone_and_writes_nothing(tmp_path):
    m = tmp_path / "m.json"
    dashvertex.Manifest().save(m)
    with pytest.raises(dashvertex.ManifestError) as e:
        dashvertex.reduce_file(SEED, tmp_path / "out.json", manifest=m, locked=True)
    assert e.value.code == "MANIFEST"
    assert not (tmp_path / "out.json").exists()


def test_refusals_name_python_keywords(tmp_path):
    with pytest.raises(dashvertex.OptionError) as e:
        dashvertex.reduce_file(SEED, tmp_path / "o.json", poses=LOSS_RIG)
    text = str(e.value)
    assert "poses supplies the poses of report and max_error" in text, text
    assert "--" not in text
    with pytest.raises(dashvertex.OptionError) as e:
        dashvertex.reduce_file(SEED, tmp_path / "o.json", max_influences=0)
    assert str(e.value).startswith("max_influences must be at least 1"), str(e.value)
    with pytest.raises(dashvertex.OptionError):
        dashvertex.reduce_file(SEED, tmp_path / "o.json", normalize="sideways")
    with pytest.raises(dashvertex.DashIOError) as e:
        dashvertex.reduce_file(tmp_path / "missing.gltf", tmp_path / "o.json")
    assert e.value.code == "IO_ERROR"
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"{\"type\": \"DashVertex\", \"vertices\": [1, 2")
    with pytest.raises(dashvertex.FormatError) as e:
        dashvertex.reduce_file(bad, tmp_path / "o.json")
    # The decoder's own code and location, as dashvertex.read gives them.
    assert e.value.code == "DECODE" and e.value.file == str(bad)
    assert e.value.pointer is not None or e.value.offset is not None, e.value.location


@pytest.mark.parametrize(
    "vector, code, pointer",
    [
        # Refused by the validator: its first error's code and JSON Pointer.
        ("accessor-too-long.gltf", "GLTF_", "/accessors/"),
        ("accessor-budget.gltf", "GLTF_ACCESSOR_BUDGET", "/accessors/4/count"),
    ],
)
def test_job_errors_keep_code_and_location(tmp_path, vector, code, pointer):
    src = REPO / "spec/vectors/gltf" / vector
    for call in (
        lambda: dashvertex.reduce_file(src, tmp_path / "o.glb"),
        lambda: dashvertex.fix_file(src, tmp_path / "f.glb"),
    ):
        with pytest.raises(dashvertex.FormatError) as e:
            call()
        assert e.value.code.startswith(code), (e.value.code, str(e.value))
        assert e.value.pointer is not None and e.value.pointer.startswith(pointer), e.value.pointer
        assert e.value.file == str(src)
        assert e.value.location is not None and e.value.pointer in e.value.location
        assert isinstance(e.value.line, int) and isinstance(e.value.column, int)
        assert f"({e.value.line}:{e.value.column})" in e.value.location
    assert not list(tmp_path.iterdir())


def test_fix_file_is_the_command(tmp_path, dashvertex_cli):
    with pytest.raises(dashvertex.FormatError):
        dashvertex.fix_file(THREE_FAULTS, tmp_path / "py.json", profile="gltf")
    done = dashvertex.fix_file(THREE_FAULTS, tmp_path / "py.json", profile="gltf",
                               out_of_range="drop", zero_sum="nearest")
    _cli(dashvertex_cli, "fix", THREE_FAULTS, "-o", tmp_path / "cli.json", "--profile", "gltf",
         "--out-of-range", "drop", "--zero-sum", "nearest", "--report", tmp_path / "cli-report.json")
    assert done.written
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert done.report == json.loads((tmp_path / "cli-report.json").read_text())
    dry = dashvertex.fix_file(THREE_FAULTS, profile="gltf", out_of_range="drop", zero_sum="nearest",
                              dry_run=True)
    assert not dry.written and dry.report == done.report
    with pytest.raises(dashvertex.OptionError) as e:
        dashvertex.fix_file(THREE_FAULTS, tmp_path / "x.json", zero_sum="everywhere")
    assert "zero_sum=" in str(e.value)
    with pytest.raises(dashvertex.OptionError):
        dashvertex.fix_file(THREE_FAULTS)


def test_remap_file_is_the_command(tmp_path, dashvertex_cli):
    m = tmp_path / "m.json"
    _cli(dashvertex_cli, "manifest", "init", RIG24, "-o", m)
    manifest = dashvertex.Manifest.load(m)
    names = list(reversed(manifest.names))
    reordered = dashvertex.Manifest()
    reordered.assign(names)
    reordered.save(tmp_path / "r.json")
    done = dashvertex.remap_file(RIG24, tmp_path / "r.json", tmp_path / "py.glb")
    _cli(dashvertex_cli, "remap", RIG24, "--manifest", tmp_path / "r.json", "-o", tmp_path / "cli.glb")
    assert done.written
    assert (tmp_path / "py.glb").read_bytes() == (tmp_path / "cli.glb").read_bytes()
    report = dashvertex.validate(tmp_path / "py.glb", manifest=tmp_path / "r.json", locked=True)
    assert report.valid, report.to_json()


def test_results_are_the_same_at_any_thread_count(tmp_path):
    a = dashvertex.reduce_file(SEED, tmp_path / "a.glb", max_influences=3, threads=1)
    b = dashvertex.reduce_file(SEED, tmp_path / "b.glb", max_influences=3, threads=4)
    assert (tmp_path / "a.glb").read_bytes() == (tmp_path / "b.glb").read_bytes()
    assert a.messages == [(l, t.replace("b.glb", "a.glb")) for l, t in b.messages]


def test_reduce_file_warns_when_the_manifest_is_another_rigs(tmp_path):
    manifest = tmp_path / "rig.manifest.json"
    first = dashvertex.reduce_file(SEED, tmp_path / "rig.json", manifest=manifest)
    assert not [m for m in first.messages if m[0] == "warning"]
    other = dashvertex.reduce_file(RIG24, tmp_path / "rig24.glb", manifest=manifest)
    assert ("warning", "the input shares 3 of its 24 bones with rig.manifest.json's 22; "
            "one manifest per skeleton keeps indices meaningful") in other.messages
    again = dashvertex.reduce_file(RIG24, tmp_path / "again.glb", manifest=manifest)
    assert not [m for m in again.messages if m[0] == "warning"]


def _png_1x1() -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def test_resources_keyword_follows_the_output(tmp_path):
    # A .gltf with an image beside it, reduced into another folder: the image is copied
    # (the default), embedded, or referenced, as `--resources` does it.
    src = tmp_path / "in"
    src.mkdir()
    doc = json.loads(SEED.read_text())
    doc["images"] = [{"uri": "hand.png"}]
    (src / "rig.gltf").write_text(json.dumps(doc))
    shutil.copy(SEED.with_suffix(".bin"), src / "rig_per_bone_attributes.bin")
    (src / "hand.png").write_bytes(_png_1x1())
    for mode, check in (
        (None, lambda out, d: (out / "hand.png").read_bytes() == _png_1x1()),
        ("copy", lambda out, d: (out / "hand.png").read_bytes() == _png_1x1()),
        ("embed", lambda out, d: d["images"][0]["uri"].startswith("data:image/png;base64,")),
        ("reference", lambda out, d: d["images"][0]["uri"] == "../in/hand.png"),
    ):
        out = tmp_path / f"out-{mode}"
        out.mkdir()
        result = dashvertex.reduce_file(src / "rig.gltf", out / "r.gltf", resources=mode)
        assert result.written
        written = json.loads((out / "r.gltf").read_text())
        assert check(out, written), (mode, written["images"])
        if mode == "reference":
            assert not (out / "hand.png").exists()
    with pytest.raises(dashvertex.OptionError, match="resources mode"):
        dashvertex.reduce_file(src / "rig.gltf", tmp_path / "x.gltf", resources="sideways")
    with pytest.raises(dashvertex.OptionError, match="max_error"):
        dashvertex.reduce_file(src / "rig.gltf", tmp_path / "x.glb", max_error=float("nan"))


@pytest.mark.parametrize(
    "source, out, args",
    [
        ("fixtures/blender/rig_per_bone_attributes.gltf", "a.json", {}),
        ("fixtures/blender/rig_per_bone_attributes.gltf", "b.glb", {}),
        ("examples/rig.json", "c.dmx", {"compact": True}),
        ("examples/rig.json", "d.json", {"form": "document"}),
        ("examples/rig.json", "e.glb", {}),
    ],
)
def test_convert_file_is_the_command(tmp_path, dashvertex_cli, source, out, args):
    src = REPO / source
    done = dashvertex.convert_file(src, tmp_path / f"py-{out}", **args)
    flags = []
    if args.get("compact"):
        flags.append("--compact")
    if "form" in args:
        flags += ["--form", args["form"]]
    _cli(dashvertex_cli, "convert", src, tmp_path / f"cli-{out}", *flags)
    assert done.written
    assert (tmp_path / f"py-{out}").read_bytes() == (tmp_path / f"cli-{out}").read_bytes()
    assert dashvertex.validate(tmp_path / f"py-{out}").valid


def test_convert_file_refuses_by_name(tmp_path):
    with pytest.raises(dashvertex.OptionError, match="JSON shape"):
        dashvertex.convert_file(REPO / "examples/rig.json", tmp_path / "x.json", form="tree")
    with pytest.raises(dashvertex.OptionError, match="form"):
        dashvertex.convert_file(REPO / "examples/rig.json", tmp_path / "x.dmx", form="array")
    with pytest.raises(dashvertex.OptionError, match="mesh"):
        dashvertex.convert_file(REPO / "examples/rig.json", tmp_path / "x.glb", mesh=0)
    assert not list(tmp_path.iterdir())
