# Earshot: one self-contained executable in a slim Debian image.
# Build:  docker build -t earshot .
# Run:    docker run -p 8080:8080 -v earshot-data:/data -v /srv/earshot/models:/models:ro earshot
# docs/operations.md ("Docker") explains volumes, models and read-only containers.

# --- build: Node only runs npm; the Bun pinned in devDependencies compiles the binary ---
# (test/integration/dockerfile.test.ts replays this stage without Docker and starts the binary;
# the default target is baseline x86-64, so the image runs on CPUs without AVX2.)
FROM node:20-bookworm AS build
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
COPY src ./src
COPY web ./web
RUN npx bun scripts/build.ts \
 && ./dist/earshot --help > /dev/null

# --- run: nothing but the binary (glibc, libstdc++ and /tmp come with the base image) ---
FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home earshot \
 && mkdir -p /data /models \
 && chown earshot:earshot /data
COPY --from=build /src/dist/earshot /usr/local/bin/earshot
ENV EARSHOT_DATA_DIR=/data \
    EARSHOT_MODELS_DIR=/models \
    EARSHOT_HOST=0.0.0.0 \
    EARSHOT_PORT=8080
VOLUME ["/data"]
EXPOSE 8080
USER earshot
WORKDIR /data
ENTRYPOINT ["/usr/local/bin/earshot"]
CMD ["serve"]
