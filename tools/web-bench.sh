#!/usr/bin/env bash
# Browser decode benchmark (issue 15): a 1 M-vertex DMX file decoded in the example page
# (headless Chromium, the module DashLoader uses) and natively (the same Rust code, release
# build), on this machine in the same run; prints both medians and the ratio native/browser
# (1.0: as fast as native). A benchmark, not a test: it checks nothing.
#
# Usage: tools/web-bench.sh [VERTICES]   (after tools/web-test.sh has built and installed)
set -euo pipefail
cd "$(dirname "$0")/.."

n=${1:-1000000}
data=js/dash-three/bench-data
mkdir -p "$data"
file="$data/bench-$n.dmx"
[ -f "$file" ] || cargo run -q --release -p dash-benches --bin make_dmx -- "$file" "$n"
[ -f js/dash-three/wasm/dash_wasm_core_bg.wasm ] || tools/web-build.sh
native=$(cargo run -q --release -p dashvertex-wasm --example decode_time -- "$file" 7)
echo "$native"
browser=$(node js/dash-three/test/browser.mjs --bench "$file")
echo "$browser"
nd=$(sed -n 's/.*NATIVE_DECODE_MS=\([0-9.]*\).*/\1/p' <<<"$native")
na=$(sed -n 's/.*NATIVE_ARRAYS_MS=\([0-9.]*\).*/\1/p' <<<"$native")
bd=$(sed -n 's/.*BROWSER_DECODE_MS=\([0-9.]*\).*/\1/p' <<<"$browser")
ba=$(sed -n 's/.*BROWSER_ARRAYS_MS=\([0-9.]*\).*/\1/p' <<<"$browser")
awk -v nd="$nd" -v na="$na" -v bd="$bd" -v ba="$ba" 'BEGIN {
  printf "ratio (native time / browser time): decode %.2fx, decode + typed arrays %.2fx (target >= 0.5x)\n", nd / bd, na / ba
}'
