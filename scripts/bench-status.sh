#!/usr/bin/env bash
# Scale benchmark of `codeq-rollout status` (issue 14), not part of the test suite: a real
# JupyterHub (the test rig's, installed by scripts/test.sh sections 2-3) with USERS users and
# RUNNING running servers, one shared stand-in endpoint behind all of them. Checks hub
# requests <= ceil(running / 200) + 1, all GET, and peak RSS < 20 MiB (/usr/bin/time -v) of
# the release build. Usage: scripts/bench-status.sh [USERS [RUNNING]] (default 10000 3000).
set -euo pipefail
cd "$(dirname "$0")/.."
users=${1:-10000}
running=${2:-3000}
cargo build --release --locked --quiet
exec .venv/bin/python scripts/bench_status.py target/release/codeq-rollout "$users" "$running"
