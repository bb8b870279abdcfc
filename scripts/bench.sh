#!/usr/bin/env bash
# Issue 9's benchmark (not part of the test suite): builds the release binary, then measures
# a whole announce run (routine and security) against a real registry and a fake GitHub on
# loopback, side by side with `skopeo inspect --raw` of the same image, plus `--version`
# start-up, peak RSS and the stripped binary's size. See scripts/bench.py for the method.
#
# Usage: scripts/bench.sh [--runs N] [--callgrind]
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v docker-registry >/dev/null || missing+=(docker-registry)
command -v skopeo >/dev/null || missing+=(skopeo)
if [ ${#missing[@]} -gt 0 ]; then
  echo "missing: ${missing[*]} (apt-get install ${missing[*]})" >&2
  exit 1
fi

cargo build --release --locked --quiet
exec python3 scripts/bench.py target/release/codeq-rollout "$@"
