#!/usr/bin/env bash
# Builds dash's WebAssembly modules into js/dash-three/wasm/ and checks their size:
#   dash_wasm_core  decode + validate (feature-less build): at most 360 KB gzipped (fails above)
#   dash_wasm       everything (also reduce and encode), loaded only for files with more
#                   than four influences per vertex
# Needs the wasm32-unknown-unknown target and wasm-bindgen-cli at the wasm-bindgen version of
# Cargo.lock (tools/web-test.sh installs both when missing). Uses wasm-opt when on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

LIMIT=360000 # bytes of gzip -9 output: decode + validate; 300 KB until the validator gained
# the Khronos suite's document checks (issue 24), which took the module to 342 KB
out=js/dash-three/wasm
target="${CARGO_TARGET_DIR:-target}"
mkdir -p "$out"

build() { # build NAME CARGO-FLAGS...
  local name=$1
  shift
  cargo build -q -p dashvertex-wasm --target wasm32-unknown-unknown --profile wasm "$@"
  wasm-bindgen --target web --out-dir "$out" --out-name "$name" \
    "$target/wasm32-unknown-unknown/wasm/dashvertex_wasm.wasm"
  if command -v wasm-opt >/dev/null; then
    wasm-opt -O3 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      "$out/${name}_bg.wasm" -o "$out/${name}_bg.wasm"
  fi
}

build dash_wasm_core --no-default-features
build dash_wasm

status=0
for name in dash_wasm_core dash_wasm; do
  raw=$(wc -c <"$out/${name}_bg.wasm")
  gz=$(gzip -9c "$out/${name}_bg.wasm" | wc -c)
  printf 'wasm size: %-15s %8d bytes, %7d bytes gzip -9' "$name" "$raw" "$gz"
  if [ "$name" = dash_wasm_core ]; then
    if [ "$gz" -gt "$LIMIT" ]; then
      printf '  FAIL: above the %d-byte target\n' "$LIMIT"
      status=1
    else
      printf '  (target: at most %d)\n' "$LIMIT"
    fi
  else
    printf '\n'
  fi
done
exit $status
