#!/usr/bin/env bash
# Checks compose.yaml and compose.postgres.yaml against the compose schema (Debian's
# docker-compose `config`), then starts each with Debian's podman-compose and checks it:
# /healthz answers 200 (on the right database), the API key printed at the first start creates a
# link, and `down -v` leaves nothing behind (docs/operations.md, "Container"). The image must be
# there already (scripts/container-build.sh --keep, or --compose, which calls this script).
# No image registry is reachable here, so PostgreSQL comes from a stand-in image made on the
# spot: Debian's postgresql-15 on the same base, honouring the public postgres image's
# POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB.
#
# Usage: scripts/container-compose-check.sh
# Env: EARSHOT_IMAGE (default localhost/earshot:test), EARSHOT_CONTAINER_BASE (default
# localhost/earshot-base:bookworm), EARSHOT_CONTAINER_PORT (default 18090)
set -euo pipefail
cd "$(dirname "$0")/.."
export EARSHOT_IMAGE=${EARSHOT_IMAGE:-localhost/earshot:test}
base=${EARSHOT_CONTAINER_BASE:-localhost/earshot-base:bookworm}
port=${EARSHOT_CONTAINER_PORT:-18090}
postgres_image=localhost/earshot-postgres-standin:15
project=earshot-compose-check-$$
work=$(mktemp -d)
. scripts/container-podman.sh
[ -n "${CONTAINERS_CONF:-}" ] || podman_conf "$work/containers.conf"
tools=()
command -v podman-compose >/dev/null || tools+=(podman-compose)
command -v docker-compose >/dev/null || tools+=(docker-compose)
if [ ${#tools[@]} -gt 0 ]; then
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${tools[@]}"
fi
# Debian's docker-compose (1.29) checks a file against the compose schema without an engine
# (podman-compose 1.0.3 has no `config`); POSTGRES_PASSWORD stands in for the one .env would hold.
for f in compose.yaml compose.postgres.yaml; do
  POSTGRES_PASSWORD=check docker-compose -f "$f" config -q || { echo "compose: $f does not pass docker-compose config" >&2; exit 1; }
done
echo "compose: compose.yaml and compose.postgres.yaml pass docker-compose config"
podman image exists "$EARSHOT_IMAGE" || { echo "compose: no image $EARSHOT_IMAGE (scripts/container-build.sh --keep makes it)" >&2; exit 1; }

file=""
down() {
  [ -z "$file" ] || podman-compose -p "$project" -f "$file" down -v >/dev/null 2>&1 || true
  podman network rm -f "${project}_default" >/dev/null 2>&1 || true
  file=""
}
cleanup() {
  down
  podman rmi -f "$postgres_image" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# check FILE DATABASE_KIND: up, healthy, a link with the printed key, down.
check() {
  local started; started=$(date +%s)
  file=$1
  podman-compose -p "$project" -f "$file" up -d >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; exit 1; }
  local health=""
  for _ in $(seq 1 90); do
    health=$(curl -sf "http://127.0.0.1:$port/healthz" || true)
    [ -n "$health" ] && break
    sleep 1
  done
  case "$health" in
    *"\"kind\":\"$2\""*) ;;
    *) podman-compose -p "$project" -f "$file" logs >&2 || true; echo "compose: $file never answered /healthz on $2 ($health)" >&2; exit 1 ;;
  esac
  local key status
  key=$(first_key "${project}_earshot_1")
  status=$(create_link "http://127.0.0.1:$port" "$key" | sed -n 1p) # sed reads it all: no SIGPIPE
  [ "$status" = 201 ] || { echo "compose: $file: creating a link answered $status" >&2; exit 1; }
  local restarts name=$file; restarts=$(podman inspect --format '{{.RestartCount}}' "${project}_earshot_1")
  down
  echo "compose: $name up, healthy on $2 and a link created in $(($(date +%s) - started)) s (earshot restarted $restarts times)"
}

export EARSHOT_HOST_PORT=$port EARSHOT_PUBLIC_URL=http://127.0.0.1:$port EARSHOT_ALLOW_INSECURE_HTTP=1
check compose.yaml sqlite

mkdir -p "$work/postgres"
cat >"$work/postgres/Containerfile" <<'CONTAINERFILE'
ARG BASE
FROM ${BASE}
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* && mkdir -p /var/lib/postgresql/data && chown postgres:postgres /var/lib/postgresql/data
COPY entry.sh /entry.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
USER postgres
ENTRYPOINT ["/bin/sh", "/entry.sh"]
CONTAINERFILE
cat >"$work/postgres/entry.sh" <<'ENTRY'
set -e
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pw=$(mktemp); printf '%s' "$POSTGRES_PASSWORD" > "$pw"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pw" --auth-host=scram-sha-256 --auth-local=trust >/dev/null
  rm -f "$pw"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  createdb -U "$POSTGRES_USER" "$POSTGRES_DB"
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
ENTRY
podman build --network host --build-arg "BASE=$base" -t "$postgres_image" "$work/postgres" >"$work/postgres.log" 2>&1 || { tail -n 40 "$work/postgres.log" >&2; exit 1; }
export EARSHOT_POSTGRES_IMAGE=$postgres_image POSTGRES_PASSWORD
POSTGRES_PASSWORD=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
check compose.postgres.yaml postgres
