#!/usr/bin/env bash
# The browser test of issue 15: dash's WebAssembly modules (size-checked), the dash-three
# package's types (tsc --noEmit) and the example page in headless Chromium (Debian's
# `chromium` driven by puppeteer-core), checked against `dashvertex convert`, `dashvertex reduce` and
# `dash-validate --format json` of the same files; then, in the same browser, the skin
# inspector of issue 30 (web/, web/test/inspector.mjs): corpus models and broken vectors
# through its file input against `dash-validate --format json`, its colour modes against
# an independent reader, screenshots in target/web-test/inspector-*.png, and a generated
# 100,000-vertex GLB timed from the file input to "ready"; and `dashvertex split` outputs read by
# three.js's GLTFLoader (js/dash-three/test/split.html) against their inputs. Installs what it needs when missing:
# chromium (apt-get), the wasm32 target (rustup), wasm-bindgen-cli at Cargo.lock's
# wasm-bindgen version (cargo install). Prints SKIPPED, and succeeds, only when there is no
# browser to be had; any other failure fails.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${CARGO_TARGET_DIR:-target}/web-test"
mkdir -p "$out"
note() { printf -- '--- %s\n' "$*"; }

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIPPED: browser test (node/npm not found)"
  exit 0
fi
CHROMIUM="${CHROMIUM:-$(command -v chromium || true)}"
if [ -z "$CHROMIUM" ]; then
  note "installing chromium (apt-get)"
  if command -v apt-get >/dev/null &&
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$out/apt.log" 2>&1; then
    CHROMIUM=$(command -v chromium)
  else
    echo "SKIPPED: browser test (chromium cannot be installed here; see $out/apt.log)"
    exit 0
  fi
fi
export CHROMIUM

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  note "installing the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
want=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  note "installing wasm-bindgen-cli $want (found: ${have:-none})"
  # --locked first; without it when the registry lacks one of the pinned versions.
  cargo install wasm-bindgen-cli --locked --version "$want" ||
    cargo install wasm-bindgen-cli --version "$want"
fi

# wasm-opt keeps the modules under their size targets. Debian's binaryen (108) is too old
# (it breaks dash_wasm_core's table); npm's binaryen package, pinned, is used instead.
binaryen=132.0.0
have_opt=$(wasm-opt --version 2>/dev/null | awk '{print $3}' || true)
if [ "${have_opt:-0}" -lt "${binaryen%%.*}" ] 2>/dev/null || [ -z "$have_opt" ]; then
  note "installing binaryen $binaryen (npm) for wasm-opt (found: ${have_opt:-none})"
  mkdir -p "$out/binaryen"
  (cd "$out/binaryen" && { [ -f package.json ] || echo '{"private":true}' >package.json; } &&
    npm install --no-audit --no-fund --loglevel=error "binaryen@$binaryen")
  PATH="$(cd "$out/binaryen/node_modules/.bin" && pwd):$PATH"
  export PATH
fi
note "wasm-opt: $(wasm-opt --version)"

note "WebAssembly modules"
tools/web-build.sh

note "dash-three: npm ci, tsc --noEmit"
(cd js/dash-three && npm ci --no-audit --no-fund --loglevel=error && npx tsc --noEmit -p .)

note "expected values from the commands"
cargo build -q --bin dashvertex --bin dash-validate
bin="${CARGO_TARGET_DIR:-target}/debug"
"$bin/dashvertex" convert examples/rig.dmx "$out/rig.dmx.json"
"$bin/dashvertex" convert examples/rig.json "$out/rig.json.json"
"$bin/dashvertex" reduce js/dash-three/test/six-influences.json -o "$out/six.reduced.json" --normalize unit --empty zero -q
"$bin/dash-validate" --format json examples/rig.dmx >"$out/rig.report.json"
splits=()
k=fixtures/corpus/gltf/khronos_samples v=spec/vectors/split
for case in $k/CesiumMan.glb:8 $k/Fox.glb:8 $k/Fox.glb:4 $v/triangle-strip.gltf:2 $v/triangle-fan.gltf:3; do
  f=${case%:*} n=${case##*:} name=$(basename "${case%.*}")
  "$bin/dashvertex" split "$f" -o "$out/$name.split$n.glb" --max-joints "$n" --report "$out/$name.split$n.json" -q
  splits+=(--split "$f=$out/$name.split$n.glb=$n=$out/$name.split$n.json")
done

note "the example page in $("$CHROMIUM" --version 2>/dev/null || echo chromium)"
node js/dash-three/test/browser.mjs --shots "$out" --inspector "$bin/dash-validate" \
  --expected rig.dmx="$out/rig.dmx.json" \
  --expected rig.json="$out/rig.json.json" \
  --reduced ../js/dash-three/test/six-influences.json="$out/six.reduced.json" \
  --report examples/rig.dmx="$out/rig.report.json" "${splits[@]}"
