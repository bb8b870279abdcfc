# syntax=docker/dockerfile:1
# codeq-rollout as a Docker container action, built from source. main's action.yml says
# `image: Dockerfile`, so the repository's own self-test (.github/workflows/self-test.yml)
# runs the code of the commit under test. Release commits point action.yml at the prebuilt
# multi-arch image instead (`image: docker://ghcr.io/octo-org/codeq-rollout@sha256:...`,
# written by scripts/pin-image): users' jobs only pull it. See docs/container-image.md.
#
# Both images are the same tree on `scratch`, assembled by the same script
# (scripts/image-rootfs): the binary, the shared libraries ldd lists for it (glibc, libgcc),
# the CA bundle, "hosts: files dns". release.yml builds it with scripts/build-image (buildah).

# Stage 1: the release binary (LTO, one codegen unit, stripped; see Cargo.toml), and its tree.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY templates ./templates
COPY scripts/image-rootfs ./scripts/image-rootfs
RUN cargo build --release --locked \
 && scripts/image-rootfs target/release/codeq-rollout /rootfs

# Stage 2: that tree alone; no shell, no package manager.
#
# No USER instruction, on purpose: the container runs as root. GitHub runs a Docker action
# as the image's user and documents that "Docker actions must be run by the default Docker
# user (root). Do not use the USER instruction in your Dockerfile, because you won't be able
# to access the GITHUB_WORKSPACE directory" ("Dockerfile support for GitHub Actions"). The
# workspace and the file-command files ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY) are owned by
# the runner's user, so a non-root USER could not write the step outputs. Root here is root
# in a throwaway container with no shell, holding only the job's own token.
# Outside Actions, run it unprivileged: `docker run --user 65532:65532 ...`.
# The labels and settings scripts/build-image gives the released image (tests/it/container.rs
# compares the labels).
FROM scratch
LABEL org.opencontainers.image.title=codeq-rollout
LABEL org.opencontainers.image.source=https://github.com/octo-org/codeq-rollout
LABEL org.opencontainers.image.licenses=MIT
COPY --from=build /rootfs/ /
ENV PATH=/usr/local/bin
WORKDIR /
ENTRYPOINT ["/usr/local/bin/codeq-rollout"]
