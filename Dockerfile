# syntax=docker/dockerfile:1
# codeq-rollout as a Docker container action (action.yml: `runs.using: docker`).
# The runner builds this file on every job unless action.yml points at a prebuilt image
# (`image: docker://ghcr.io/...`); see README, "Prebuilt image".

# Stage 1: the release binary (LTO, one codegen unit, stripped; see Cargo.toml).
# Same Debian release as the runtime stage, so the glibc the binary links against is there.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY templates ./templates
RUN cargo build --release --locked \
 && cp target/release/codeq-rollout /codeq-rollout

# Stage 2: distroless "cc": glibc, libgcc, CA certificates and tzdata; no shell, no package
# manager. rustls (octocrab, oci-client) loads the system roots from /etc/ssl/certs.
#
# No USER instruction, on purpose: the container runs as root. GitHub runs a Docker action
# as the image's user and documents that "Docker actions must be run by the default Docker
# user (root). Do not use the USER instruction in your Dockerfile, because you won't be able
# to access the GITHUB_WORKSPACE directory" ("Dockerfile support for GitHub Actions"). The
# workspace and the file-command files ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY) are owned by
# the runner's user, so a non-root USER could not write the step outputs. Root here is root
# in a throwaway container with no shell, holding only the job's own token.
# Outside Actions, run it unprivileged: `docker run --user 65532:65532 ...`.
#
# Distroless publishes no version tags (only latest, nonroot, debug): `latest` of the
# Debian 12 line it is. Publishers of a prebuilt image may pin it by digest (`@sha256:...`).
# hadolint ignore=DL3007
FROM gcr.io/distroless/cc-debian12:latest
COPY --from=build /codeq-rollout /usr/local/bin/codeq-rollout
ENTRYPOINT ["/usr/local/bin/codeq-rollout"]
