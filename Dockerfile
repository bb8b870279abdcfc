# syntax=docker/dockerfile:1
# Build stage: the release binary.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY templates ./templates
RUN cargo build --release --locked && cp target/release/codeq-rollout /codeq-rollout

# Runtime stage: distroless with CA certificates (rustls loads the system roots), non-root.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /codeq-rollout /usr/local/bin/codeq-rollout
USER nonroot
ENTRYPOINT ["/usr/local/bin/codeq-rollout"]
