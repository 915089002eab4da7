#!/usr/bin/env bash
# Installs dash-validate for action.yml: from crates.io when DASH_VERSION is set, else from
# the action's own checkout; cached under the runner's tool cache, put on GITHUB_PATH.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
key="${DASH_VERSION:-$(git -C "$src" rev-parse HEAD 2>/dev/null || echo local)}"
root="${RUNNER_TOOL_CACHE:-$HOME/.cache}/dash-validate/$key"
if [[ ! -x "$root/bin/dash-validate" ]]; then
  if [[ -n "${DASH_VERSION:-}" ]]; then
    cargo install --locked --root "$root" dashvertex-cli --version "$DASH_VERSION"
  else
    cargo install --locked --root "$root" --path "$src/crates/dashvertex-cli"
  fi
fi
echo "$root/bin" >> "${GITHUB_PATH:-/dev/null}"
"$root/bin/dash-validate" --version
