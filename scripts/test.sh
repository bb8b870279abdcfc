#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests need when it is missing,
# then runs the checks. `.ci/run` calls exactly this script.
set -euo pipefail
cd "$(dirname "$0")/.."

# 1. System packages the tests start themselves: a real registry and skopeo (and jq, which
#    the break-glass runbook's commands use).
missing=()
command -v docker-registry >/dev/null || missing+=(docker-registry)
command -v skopeo >/dev/null || missing+=(skopeo)
command -v htpasswd >/dev/null || missing+=(apache2-utils)
command -v jq >/dev/null || missing+=(jq)  # the runbook's commands, run by tests/it/window_docs.rs
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. Rust checks and tests.
cargo fmt --all -- --check
cargo clippy --locked --all-targets --quiet -- -D warnings
cargo test --locked

# 3. The deployment doc cannot drift from the code.
cargo run --locked --quiet -- docs --check
