#!/usr/bin/env bash
# The Blender add-on's CI step (run by .ci/run from the repository root): Blender and
# numpy from apt when missing, the dashvertex wheel (built here unless DASH_WHEEL names
# one), the tests inside Blender against the dashvertex binary, undo under Xvfb (xvfb
# from apt when missing; SKIPPED where it cannot be installed), the extension zip (and,
# with DASH_BPY_PYTHON, the tests on it installed in Blender 4.2+), the timings.
# SKIPPED only where Blender cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/../.."

# What apt installs when missing: Blender with numpy, and Xvfb for the undo test.
need=""
if ! command -v blender >/dev/null || ! /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  need="blender python3-numpy"
fi
command -v xvfb-run >/dev/null || need="$need xvfb xauth"
if [ -n "$need" ] && command -v apt-get >/dev/null \
   && { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null; }; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
  # shellcheck disable=SC2086 # the package names are words
  $sudo apt-get install -y -q $need >/dev/null 2>&1 \
    || { $sudo apt-get update -q >/dev/null 2>&1 \
         && $sudo apt-get install -y -q $need >/dev/null 2>&1; } || true
fi
if ! command -v blender >/dev/null; then
  echo "SKIPPED: blender is not installed and apt-get could not install it: the add-on is not tested"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wheel=${DASH_WHEEL:-}
if [ -z "$wheel" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q maturin
  (cd crates/dashvertex-py && "$work/venv/bin/maturin" build --release -q -o "$work/dist")
  wheel=$(ls "$work"/dist/dashvertex-*-abi3-*.whl)
fi
python3 -m pip install -q --disable-pip-version-check --target "$work/site" --no-deps "$wheel"
cargo build -q --bin dashvertex

export PYTHONPATH="$work/site" DASH_BIN_DIR="$PWD/target/debug" DASH_WHEEL="$wheel"
blender -b --factory-startup --python-exit-code 1 --python blender/tests/run.py 2>&1 \
  | grep -v -e "Draco mesh compression is not available" -e " | INFO: "
# undo needs an interactive Blender: under a virtual display when xvfb-run is there
if command -v xvfb-run >/dev/null; then
  timeout 300 xvfb-run -a -s "-screen 0 1280x1024x24" blender --factory-startup \
    --python blender/tests/undo.py 2>&1 \
    | grep "^undo:"
else
  echo "SKIPPED: the undo test (blender/tests/undo.py) needs xvfb-run"
fi
# Blender 4.2+ as an extension: with DASH_BPY_PYTHON naming a Python that has the PyPI
# bpy module (4.2 or later), the same tests run on the installed extension zip.
if [ -n "${DASH_BPY_PYTHON:-}" ]; then
  zip=$(python3 blender/build_extension.py "$wheel" -o "$work/ext")
  BLENDER_USER_RESOURCES="$work/bl-user" DASH_EXTENSION_ZIP="$zip" \
    "$DASH_BPY_PYTHON" blender/tests/run_extension.py 2>&1 | grep -v -e "Draco mesh compression"
fi
blender -b --factory-startup --python-exit-code 1 --python blender/tests/bench.py 2>&1 \
  | grep "^bench:"
