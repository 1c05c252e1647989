# Earshot: one self-contained executable in a slim Debian image.
# Build:  docker build -t earshot .          (or: podman build --format docker -t earshot .)
# Run:    docker run -p 8080:8080 -v earshot-data:/data -v /srv/earshot/models:/models:ro earshot
# docs/operations.md ("Container") explains volumes, models, compose files, read-only containers,
# and scripts/container-build.sh, which builds and runs this image with Debian's podman.
#
# BASE is the Debian bookworm image both stages start from. The default is the public one; a
# machine without an image registry passes a local one (scripts/container-build.sh makes it
# with mmdebstrap): --build-arg BASE=localhost/earshot-base:bookworm
ARG BASE=docker.io/library/debian:bookworm-slim

# --- node: Debian's Node and npm, only to run npm (Bun comes from npm, see the build stage) ---
# Debian 12's Node is 18, so `npm ci` warns EBADENGINE for packages that ask for 20: Node runs
# only npm and the bun package's install script here; Bun runs the build and the binary.
# cmake, g++ and make compile the whisper.cpp addon (scripts/build-whisper.ts) in the build stage.
FROM ${BASE} AS node
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm ca-certificates cmake g++ make \
 && rm -rf /var/lib/apt/lists/*

# --- build: the Bun pinned in devDependencies compiles the binary ---
# (test/integration/dockerfile.test.ts replays this stage without an engine and starts the
# binary; the default target is baseline x86-64, so the image runs on CPUs without AVX2.)
FROM node AS build
WORKDIR /src
# onnxruntime-node's postinstall would try to download GPU files; its CPU files ship in the
# package (.npmrc says the same; the variable also covers npm versions that ignore it there).
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY models/manifest.json ./models/manifest.json
COPY corpus ./corpus
COPY scripts ./scripts
# The whisper.cpp addon's own sources; whisper.cpp's come with npm ci (devDependency nodejs-whisper).
COPY native/whisper/addon.cc native/whisper/CMakeLists.txt ./native/whisper/
COPY src ./src
COPY web ./web
RUN npm run build \
 && ./dist/earshot --help > /dev/null

# --- run: nothing but the binary (glibc, libstdc++ and /tmp come with the base image; the
# whisper.cpp addon inside it links its C++ runtime statically) ---
FROM ${BASE}
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home earshot \
 && mkdir -p /data /models \
 && chown earshot:earshot /data /models
COPY --from=build /src/dist/earshot /usr/local/bin/earshot
# /models is the earshot user's so that a named volume there can be filled by `earshot models
# fetch` run in the container; mount a host folder read-only (:ro) to keep it read-only.
ENV EARSHOT_DATA_DIR=/data \
    EARSHOT_MODELS_DIR=/models \
    EARSHOT_HOST=0.0.0.0 \
    EARSHOT_PORT=8080
VOLUME ["/data"]
EXPOSE 8080
USER earshot
WORKDIR /data
# `earshot healthcheck` exits 0 when /healthz/ready answers 200 on EARSHOT_PORT (no curl in the
# image). The start period covers the first start's migrations.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/earshot", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/earshot"]
CMD ["serve"]
