#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds each (default 20), one after the other, and
# fails on the first crash. Usage: fuzz/run.sh [SECONDS] [TARGET...]
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(json_decode json_schema_agreement binary_decode roundtrip validate_any reduce meshopt_decode fbx_load)
fi
mkdir -p fuzz/logs
# Overflow checks and debug assertions on; no sanitizer: the workspace forbids `unsafe`, so
# AddressSanitizer would mostly cost executions (about 4-5x here) without finding more.
flags=(--debug-assertions --sanitizer none --features libfuzzer)
cargo +nightly fuzz build "${flags[@]}"

# Links a target's seeds (fuzz/seeds.list: repository files read in place) into one folder
# libFuzzer reads; it writes what it finds only into fuzz/corpus/TARGET.
link_seeds() {
  local target="$1" dir="target/fuzz-seeds/$1"
  rm -rf "$dir" && mkdir -p "$dir"
  while read -r t path exts; do
    [[ "$t" == "$target" ]] || continue
    if [[ -f "$path" ]]; then
      ln -sf "$PWD/$path" "$dir/$(echo "$path" | tr / _)"
      continue
    fi
    for f in "$path"/*; do
      [[ -f "$f" ]] || continue
      if [[ -n "$exts" ]] && ! [[ " $exts " == *" ${f##*.} "* ]]; then continue; fi
      ln -sf "$PWD/$f" "$dir/$(echo "$f" | tr / _)"
    done
  done < <(grep -v '^#' fuzz/seeds.list)
  echo "$dir"
}
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  echo "== $t (${seconds}s)"
  seeds="$(link_seeds "$t")"
  if ! cargo +nightly fuzz run "${flags[@]}" "$t" "fuzz/corpus/$t" "$seeds" -- \
      -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
      > "fuzz/logs/$t.log" 2>&1; then
    tail -n 40 "fuzz/logs/$t.log"
    echo "fuzz target $t failed (crash input in fuzz/artifacts/$t/)"
    exit 1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov: " "fuzz/logs/$t.log" | tail -n 3
done
