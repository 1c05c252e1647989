# shellcheck shell=bash
# Sourced by scripts/container-build.sh and scripts/container-compose-check.sh: podman settings
# for build machines like ours, in a containers.conf of the run's own (the host's podman
# configuration is left alone):
# - runc rather than the default crun, which refuses a host with hybrid cgroups v1/v2 ("cgroups
#   in hybrid mode not supported");
# - limits no higher than this shell's: rootful podman asks for a million open files and
#   processes, and a host without CAP_SYS_RESOURCE refuses that ("error setting rlimit").
# Without systemd, podman logs that it cannot add healthcheck timers; `podman healthcheck run`
# runs an image's HEALTHCHECK all the same.

# podman_conf FILE: writes the settings to FILE and exports CONTAINERS_CONF=FILE.
podman_conf() {
  export CONTAINERS_CONF=$1
  cat >"$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=4096:4096"]
[engine]
runtime = "runc"
CONF
}

# first_key CONTAINER: the API key the appliance printed at its first start.
first_key() {
  podman logs "$1" 2>&1 | grep -oE 'sk_live_[A-Za-z0-9_-]+' | sed -n 1p # sed reads it all: no SIGPIPE
}

# create_link BASE_URL KEY: POSTs a link with KEY; prints the HTTP status and then the link's
# public_url on the next line.
create_link() {
  local out; out=$(mktemp)
  curl -s -o "$out" -w '%{http_code}\n' -X POST "$1/api/v1/links/" \
    -H "Authorization: Bearer $2" -H 'Content-Type: application/json' \
    -d '{"name": "Container check", "questions": [{"prompt": "What should we improve?", "type": "voice"}]}'
  grep -oE '"public_url":"[^"]+"' "$out" | cut -d'"' -f4
  rm -f "$out"
}
