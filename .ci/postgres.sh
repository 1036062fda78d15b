#!/usr/bin/env bash
# Sourced by .ci/run: installs PostgreSQL where it is absent (Debian's
# postgresql package), starts a throwaway server on a free loopback port in
# a temporary folder (initdb as the unprivileged postgres user, fsync off),
# exports LOOP_TEST_PG for the store's contract suite and the multi-instance
# tests, and stops it when the run ends. Run it alone to get a server for a
# session: `source .ci/postgres.sh` (stop it with `pg_stop`).

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

if [ -z "$(pg_bin)" ]; then
  echo "== installing PostgreSQL (Debian's postgresql package)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
PG_BIN=$(pg_bin)
if [ -z "$PG_BIN" ]; then
  echo "PostgreSQL is not installed and could not be: the PostgreSQL tests cannot run" >&2
  return 1 2>/dev/null || exit 1
fi

PG_DIR=$(mktemp -d /tmp/the-loop-pg.XXXXXX)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"

PG_PORT=55432
while (exec 3<>"/dev/tcp/127.0.0.1/$PG_PORT") 2>/dev/null; do PG_PORT=$((PG_PORT + 1)); done

as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
  -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
  start >/dev/null
export LOOP_TEST_PG="postgres://postgres@127.0.0.1:$PG_PORT/postgres?sslmode=disable"
echo "== PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT (LOOP_TEST_PG)"

pg_stop() {
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
}
