#!/usr/bin/env bash
# The check of action.yml: expands INPUT_PATHS (bash globs, `**` included; a pattern that
# matches nothing is a warning), runs dash-validate with INPUT_ARGS on what they name, and
# writes a SARIF report to INPUT_SARIF when set. Exit status is dash-validate's: 0 valid,
# 1 invalid, 2 usage or I/O error (also: no file at all to check).
set -euo pipefail
shopt -s globstar nullglob
exe="${DASH_VALIDATE:-dash-validate}"
files=()
read -r -d '' -a patterns <<<"${INPUT_PATHS:-.}" || true
for p in "${patterns[@]}"; do
  if [[ -e "$p" ]]; then
    files+=("$p")
    continue
  fi
  matched=($p)
  if ((${#matched[@]} == 0)); then
    echo "::warning::dash-validate: '$p' matches no file"
  fi
  files+=("${matched[@]}")
done
if ((${#files[@]} == 0)); then
  echo "::error::dash-validate: no file to check (paths: ${INPUT_PATHS:-.})"
  exit 2
fi
read -r -d '' -a args <<<"${INPUT_ARGS:-}" || true
status=0
"$exe" --skip-other-json "${args[@]}" -- "${files[@]}" || status=$?
if [[ -n "${INPUT_SARIF:-}" ]]; then
  sarif_status=0
  "$exe" --skip-other-json "${args[@]}" --format sarif -- "${files[@]}" >"$INPUT_SARIF" 2>/dev/null || sarif_status=$?
  if ((sarif_status > 1)); then
    echo "::error::dash-validate: the SARIF report could not be written"
    exit "$sarif_status"
  fi
  echo "sarif=$INPUT_SARIF" >> "${GITHUB_OUTPUT:-/dev/null}"
fi
exit "$status"
