"""Shared paths: the repository's test files, and the CLI binaries to compare with.

The tests import the installed wheel, never the source tree: run pytest from a folder
where crates/dashvertex-py/python is not on sys.path (.ci/run does).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(os.environ.get("DASH_REPO", Path(__file__).resolve().parents[3]))


def corpus(*globs: str) -> list[Path]:
    """The repository's files matching the globs, sorted."""
    out: set[Path] = set()
    for g in globs:
        out.update(REPO.glob(g))
    return sorted(out)


GLTF_FILES = corpus(
    "spec/vectors/gltf/*.gltf",
    "spec/vectors/gltf/*.glb",
    "fixtures/corpus/gltf/**/*.gltf",
    "fixtures/corpus/gltf/**/*.glb",
    "fixtures/blender/*.gltf",
    "fixtures/blender/*.glb",
)
DASH_FILES = corpus(
    "spec/vectors/json/*.json",
    "spec/vectors/binary/*.dmx",
    "spec/vectors/binary/*.raw",
    "examples/*.json",
    "examples/*.dmx",
)


def _binary(name: str) -> Path | None:
    where = os.environ.get("DASH_BIN_DIR")
    dirs = [Path(where)] if where else [REPO / "target" / "release", REPO / "target" / "debug"]
    for d in dirs:
        if (d / name).is_file():
            return d / name
    found = shutil.which(name)
    return Path(found) if found else None


def _require(name: str) -> Path:
    b = _binary(name)
    if b is None:
        if os.environ.get("DASH_REQUIRE_CLI"):
            pytest.fail(f"{name} not found (DASH_BIN_DIR, target/, PATH) and DASH_REQUIRE_CLI is set")
        pytest.skip(f"SKIPPED: {name} not built (cargo build --bin {name})")
    return b


@pytest.fixture(scope="session")
def dash_validate() -> Path:
    return _require("dash-validate")


@pytest.fixture(scope="session")
def dashvertex_cli() -> Path:
    return _require("dashvertex")


def run(cmd: list, **kw) -> subprocess.CompletedProcess:
    """Runs a CLI command, capturing its output as bytes."""
    return subprocess.run([str(c) for c in cmd], capture_output=True, timeout=300, **kw)
