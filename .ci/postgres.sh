#!/usr/bin/env bash
# A throwaway PostgreSQL for the store's second backend (the store's
# contract suite and the multi-instance tests read LOOP_TEST_PG).
#
#   .ci/postgres.sh install   installs Debian's postgresql package where no
#                             server binaries are found (as root with
#                             apt-get; otherwise says why and does nothing)
#   source .ci/postgres.sh    starts a server on a free loopback port in a
#                             temporary folder (initdb as the unprivileged
#                             postgres user, fsync off; about 2 s), exports
#                             LOOP_TEST_PG and defines pg_stop, which stops
#                             it and removes the folder.
#
# Both are idempotent: an exported LOOP_TEST_PG is kept as it is (nothing is
# started), installed binaries are not installed again. Off CI a machine
# without PostgreSQL is fine (the tests skip, naming the reason); under
# CI=true a missing server fails the run here, and the tests fail too.

# pg_bin prints the newest installed server's bin folder ("" when none).
pg_bin() {
  local d found=()
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && found+=("$d"); done
  [ ${#found[@]} -gt 0 ] && printf '%s\n' "${found[@]}" | sort -V | tail -1
  return 0
}

pg_missing() {
  if [ "${CI:-}" = true ]; then
    echo "PostgreSQL: $1; CI=true needs it for the store's PostgreSQL tests" >&2
    return 1
  fi
  echo "== PostgreSQL: $1; the PostgreSQL tests will skip"
  return 0
}

pg_install() {
  [ -n "${LOOP_TEST_PG:-}" ] && return 0
  [ -n "$(pg_bin)" ] && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    pg_missing "not installed, and this is no root shell with apt-get to install it"
    return
  fi
  echo "== installing PostgreSQL (Debian's postgresql package)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
}

pg_stop() { :; }

pg_start() {
  if [ -n "${LOOP_TEST_PG:-}" ]; then
    echo "== PostgreSQL: LOOP_TEST_PG is set, using that server"
    return 0
  fi
  local bin
  bin=$(pg_bin)
  if [ -z "$bin" ]; then
    pg_missing "no server binaries under /usr/lib/postgresql/*/bin"
    return
  fi
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    pg_missing "no postgres user to run initdb as (root may not)"
    return
  fi
  PG_DIR=$(mktemp -d /tmp/the-loop-pg.XXXXXX)
  PG_BIN=$bin
  as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
  [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
  PG_PORT=55432
  while (exec 3<>"/dev/tcp/127.0.0.1/$PG_PORT") 2>/dev/null; do PG_PORT=$((PG_PORT + 1)); done
  if ! as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --no-sync >"$PG_DIR/initdb.log" 2>&1 ||
    ! as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
      -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
      start >/dev/null; then
    cat "$PG_DIR/initdb.log" "$PG_DIR/log" 2>/dev/null >&2
    rm -rf "$PG_DIR"
    pg_missing "the server did not start (its log is above)"
    return
  fi
  export LOOP_TEST_PG="postgres://postgres@127.0.0.1:$PG_PORT/postgres?sslmode=disable"
  echo "== PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT (LOOP_TEST_PG)"
  pg_stop() {
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
  }
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case "${1:-}" in
  install) pg_install ;;
  *) echo "usage: .ci/postgres.sh install   (or: source .ci/postgres.sh to start a server)" >&2; exit 2 ;;
  esac
else
  pg_start
fi
