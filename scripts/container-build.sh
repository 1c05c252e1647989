#!/usr/bin/env bash
# Builds the Dockerfile with Debian's podman and proves the image runs, on a machine that reaches
# no image registry (docs/operations.md, "Container"):
#   1. installs podman and mmdebstrap from Debian when missing (needs root);
#   2. makes a Debian bookworm base image with mmdebstrap from the apt mirror this machine is
#      configured with (/etc/apt/sources.list*), carrying this machine's extra CA certificates
#      (/usr/local/share/ca-certificates) so that apt and npm inside the build trust the same
#      TLS as the host, and imports it as localhost/earshot-base:bookworm (kept between runs);
#   3. builds the image, every stage, with --build-arg BASE=localhost/earshot-base:bookworm;
#   4. runs the image on 127.0.0.1:$PORT, waits for its HEALTHCHECK (`earshot healthcheck`),
#      creates a link through the API with the key the first start printed, and removes the
#      container;
#   5. with --compose, starts both compose files with the image (scripts/container-compose-check.sh).
# Prints one line per phase with its duration, and a last line `container: ok …` (image size).
#
# Usage: scripts/container-build.sh [--rebuild-base] [--no-cache] [--compose] [--keep]
#   --rebuild-base  make the base image again even if it exists
#   --no-cache      build every step again (podman reuses the layers of an earlier build)
#   --compose       then start both compose files with the image (scripts/container-compose-check.sh)
#   --keep          leave the image (localhost/earshot:test) in place (default: removed)
# Env: EARSHOT_CONTAINER_PORT (default 18080), EARSHOT_CONTAINER_IMAGE (default localhost/earshot:test)
set -euo pipefail
cd "$(dirname "$0")/.."

rebuild_base=0 keep=0 compose=0 no_cache=()
for arg in "$@"; do
  case "$arg" in
    --rebuild-base) rebuild_base=1 ;;
    --keep) keep=1 ;;
    --no-cache) no_cache=(--no-cache) ;;
    --compose) compose=1 ;;
    *) echo "usage: $0 [--rebuild-base] [--no-cache] [--compose] [--keep]" >&2; exit 2 ;;
  esac
done
port=${EARSHOT_CONTAINER_PORT:-18080}
image=${EARSHOT_CONTAINER_IMAGE:-localhost/earshot:test}
base=localhost/earshot-base:bookworm
name=earshot-container-check-$$
work=$(mktemp -d)
started=$(date +%s)
phase_start=$started

phase() { # phase NAME: prints the previous phase's duration
  local now; now=$(date +%s)
  echo "container: $1 ($((now - phase_start)) s)"
  phase_start=$now
}
cleanup() {
  podman rm -f -v "$name" >/dev/null 2>&1 || true # -v: the anonymous /data volume too
  if [ "$keep" != 1 ]; then
    podman rmi -f "$image" >/dev/null 2>&1 || true
    podman image prune -f >/dev/null 2>&1 || true # the build stages' untagged layers
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# 1. Tools. podman's rootful defaults (overlay storage, netavark) need nothing more.
missing=()
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
command -v curl >/dev/null || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" uidmap fuse-overlayfs slirp4netns
fi
phase "tools ready"
# podman's settings for this machine (runc, limits): scripts/container-podman.sh.
. scripts/container-podman.sh
podman_conf "$work/containers.conf"

# 2. The base image: Debian's own mirror as this machine's apt uses it (the first http(s) URIs of
# a Debian archive and of its security archive in its sources), bookworm with its updates and
# security updates, minbase (what debian:bookworm-slim is).
if [ "$rebuild_base" = 1 ] || ! podman image exists "$base"; then
  # (URIs of deb822 .sources and of one-line "deb" entries; not comments, which may name others.)
  uris=$(grep -rhE '^[[:space:]]*(URIs:|deb[[:space:]])' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | grep -oE 'https?://[^ ]+' || true)
  mirror=$(grep -E '/debian/?$' <<<"$uris" | head -n1 | sed 's|/$||' || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  security=$(grep -E '/debian-security/?$' <<<"$uris" | head -n1 | sed 's|/$||' || true)
  security=${security:-http://deb.debian.org/debian-security}
  mkdir -p "$work/ca"
  cp /usr/local/share/ca-certificates/*.crt "$work/ca/" 2>/dev/null || true
  # What debian:bookworm-slim leaves out (documentation, manuals, translations); the rules stay in
  # the image's /etc/dpkg/dpkg.cfg.d, so the build's own apt-get installs follow them too.
  slim=(--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias')
  mmdebstrap --variant=minbase --include=ca-certificates "${slim[@]}" \
    --customize-hook="mkdir -p \"\$1/usr/local/share/ca-certificates\"" \
    --customize-hook="copy-in $work/ca/. /usr/local/share/ca-certificates/" \
    --customize-hook="chroot \"\$1\" update-ca-certificates" \
    --customize-hook="rm -rf \"\$1\"/var/lib/apt/lists/* \"\$1\"/var/cache/apt/*.bin" \
    bookworm "$work/base.tar" "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb $security bookworm-security main" >"$work/mmdebstrap.log" 2>&1 || {
    tail -n 40 "$work/mmdebstrap.log" >&2
    echo "container: mmdebstrap failed (log above)" >&2
    exit 1
  }
  # Node (Debian's nodejs) reads its own CA list unless told; the extra CAs must reach npm too.
  podman import --change 'CMD ["bash"]' --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    "$work/base.tar" "$base" >/dev/null
  rm -f "$work/base.tar"
  phase "base image $base made with mmdebstrap from $mirror"
else
  phase "base image $base already there"
fi

# 3. Both stages. --format docker: the OCI format has no HEALTHCHECK. --network host: the build's
# apt and npm reach the mirrors as the host does.
podman build "${no_cache[@]}" --format docker --network host --build-arg "BASE=$base" -t "$image" . >"$work/build.log" 2>&1 || {
  tail -n 60 "$work/build.log" >&2
  echo "container: the build failed (log above)" >&2
  exit 1
}
phase "image $image built"
# The image must declare the HEALTHCHECK that orchestrators run.
check=$(podman image inspect --format '{{json .Config.Healthcheck.Test}}' "$image")
[ "$check" = '["CMD","/usr/local/bin/earshot","healthcheck"]' ] || { echo "container: the image's HEALTHCHECK is $check" >&2; exit 1; }

# 4. Run it on a loopback port. Plain HTTP reaches the container from podman's bridge, not from
# its loopback, so API keys over it need EARSHOT_ALLOW_INSECURE_HTTP (a real deployment puts a
# TLS proxy in front, docs/operations.md).
podman run -d --name "$name" -p "127.0.0.1:$port:8080" -e EARSHOT_PUBLIC_URL="http://127.0.0.1:$port" -e EARSHOT_ALLOW_INSECURE_HTTP=1 \
  "$image" 2> >(grep -v 'systemd connection' >&2) >/dev/null
# The HEALTHCHECK runs `earshot healthcheck`. A binary from before that command existed cannot
# pass it: then this script waits on /healthz from the host instead, and says so.
# (`earshot <unknown> --help` prints the top-level help and exits 0: look for it in the list.)
if podman run --rm --entrypoint /usr/local/bin/earshot "$image" --help 2>/dev/null | grep -qE '^  healthcheck( |$)'; then
  probe=(podman healthcheck run "$name") how="HEALTHCHECK: earshot healthcheck"
else
  echo "container: WARNING: this binary has no \`earshot healthcheck\`; waiting on GET /healthz instead" >&2
  probe=(curl -sf -o /dev/null "http://127.0.0.1:$port/healthz") how="GET /healthz; the image's HEALTHCHECK cannot pass yet"
fi
healthy=0
for _ in $(seq 1 60); do
  if "${probe[@]}" >/dev/null 2>&1; then healthy=1; break; fi
  sleep 1
done
if [ "$healthy" != 1 ]; then
  podman logs "$name" >&2 || true
  podman inspect --format '{{json .State.Health}}' "$name" >&2 || true
  echo "container: the container never became healthy ($how)" >&2
  exit 1
fi
phase "container healthy ($how)"

key=$(first_key "$name")
[ -n "$key" ] || { podman logs "$name" >&2; echo "container: the first start printed no API key" >&2; exit 1; }
{ read -r status; read -r url || true; } < <(create_link "http://127.0.0.1:$port" "$key")
[ "$status" = 201 ] || { echo "container: creating a link answered $status" >&2; exit 1; }
page=$(curl -s -o /dev/null -w '%{http_code}' "$url")
[ "$page" = 200 ] || { echo "container: the link's page $url answered $page" >&2; exit 1; }
phase "link created with the printed key; its page answers 200"

podman stop -t 10 "$name" 2> >(grep -v 'systemd connection' >&2) >/dev/null
phase "container stopped"
if [ "$compose" = 1 ]; then
  EARSHOT_IMAGE=$image EARSHOT_CONTAINER_BASE=$base scripts/container-compose-check.sh 2> >(grep -v 'systemd connection' >&2)
  phase "compose files checked"
fi
size=$(podman image inspect --format '{{.Size}}' "$image")
echo "container: ok in $(($(date +%s) - started)) s; image $image $((size / 1000000)) MB"
