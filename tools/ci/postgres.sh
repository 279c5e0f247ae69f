#!/usr/bin/env bash
# A PostgreSQL cluster of its own for the test suites (issue 32): Debian's postgresql, installed when missing,
# a new cluster under a temporary directory, listening on a free loopback port only, fsync on (the suites
# prove durability on it), idle transactions cut after 60 s (a stuck test must not stall every subscriber).
# initdb and pg_ctl refuse to run as root: they run as the `postgres` user (runuser).
#
#   tools/ci/postgres.sh start [DIR]   starts it; prints DATABASE_URL=postgres://... on its last line
#   tools/ci/postgres.sh stop  [DIR]   stops it (fast shutdown) and removes DIR
#
# DIR defaults to ${CIP_PG_DIR:-/tmp/cip-postgres}. Trust authentication on 127.0.0.1 only: a test cluster.
set -euo pipefail

command=${1:-}
dir=${2:-${CIP_PG_DIR:-/tmp/cip-postgres}}

bindir() {
  local ctl
  ctl=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  echo "$ctl"
}

ensure_installed() {
  if [ -z "$(bindir)" ] || [ ! -x "$(bindir)/initdb" ]; then
    echo "== install postgresql (Debian)" >&2
    export DEBIAN_FRONTEND=noninteractive
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq >&2
    $sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  fi
}

as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

case "$command" in
  start)
    ensure_installed
    bin=$(bindir)
    if [ -f "$dir/port" ] && as_postgres "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      echo "DATABASE_URL=postgres://postgres@127.0.0.1:$(cat "$dir/port")/postgres"
      exit 0
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir"
    as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --no-sync >/dev/null
    port=$(free_port)
    # max_connections 200, twice the default: one split topology stays under 100 (docs/STACK-NOTES.md counts
    # it), and the e2e-split project runs two spec files' topologies at once on this one cluster.
    echo "$port" >"$dir/port.tmp"
    mv "$dir/port.tmp" "$dir/port"
    as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start -o \
      "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=on \
       -c idle_in_transaction_session_timeout=60000 -c max_connections=200 -c shared_buffers=128MB" >/dev/null
    echo "DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    bin=$(bindir)
    if [ -n "$bin" ] && [ -d "$dir/data" ]; then
      as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start|stop [DIR]" >&2
    exit 2
    ;;
esac
