#!/usr/bin/env bash
# Starts a throw-away PostgreSQL 15 server for tests: a temporary data directory, a random free
# loopback port, password authentication, fsync off. Stops it and removes the directory on exit.
#
# Sourced (`. tests/lib/start_postgres.sh`): exports OMGDB_TEST_PG_PORT, OMGDB_TEST_PG_USER,
# OMGDB_TEST_PG_PASSWORD, OMGDB_TEST_PG_DB and OMGDB_TEST_PG_DIR, and registers the stop in the
# caller's EXIT trap (several start_*.sh scripts can be sourced; each adds its own hook).
# Executed: prints the same variables as `NAME=value` lines and serves until interrupted.
#
# PostgreSQL refuses to run as root: as root, initdb and postgres run as the `postgres` user
# created by the Debian package, in a directory owned by it.
set -euo pipefail

omgdb_pg_bin=${OMGDB_PG_BIN:-/usr/lib/postgresql/15/bin}
[ -x "$omgdb_pg_bin/postgres" ] || { echo "start_postgres: $omgdb_pg_bin/postgres not found (apt-get install postgresql)" >&2; return 1 2>/dev/null || exit 1; }

. "$(dirname "${BASH_SOURCE[0]}")/exit_hooks.sh"

OMGDB_TEST_PG_DIR=$(mktemp -d /tmp/omgdb-pg.XXXXXX)
OMGDB_TEST_PG_USER=omgdb
OMGDB_TEST_PG_PASSWORD=omgdb-pg-test-secret
OMGDB_TEST_PG_DB=omgdb_test
omgdb_pg_as=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres: "$OMGDB_TEST_PG_DIR"
  omgdb_pg_as=(runuser -u postgres --)
fi
chmod 700 "$OMGDB_TEST_PG_DIR"
printf '%s\n' "$OMGDB_TEST_PG_PASSWORD" >"$OMGDB_TEST_PG_DIR/pwfile"
[ "$(id -u)" -ne 0 ] || chown postgres: "$OMGDB_TEST_PG_DIR/pwfile"
printf -v omgdb_pg_stop '%q ' "${omgdb_pg_as[@]}" "$omgdb_pg_bin/pg_ctl" -D "$OMGDB_TEST_PG_DIR/data" -m immediate stop
omgdb_add_exit_hook "$omgdb_pg_stop>/dev/null 2>&1; rm -rf $(printf %q "$OMGDB_TEST_PG_DIR")"

"${omgdb_pg_as[@]}" "$omgdb_pg_bin/initdb" -D "$OMGDB_TEST_PG_DIR/data" -U "$OMGDB_TEST_PG_USER" \
  --pwfile="$OMGDB_TEST_PG_DIR/pwfile" -A scram-sha-256 -E UTF8 --locale=C --no-sync >"$OMGDB_TEST_PG_DIR/initdb.log" 2>&1 \
  || { cat "$OMGDB_TEST_PG_DIR/initdb.log" >&2; return 1 2>/dev/null || exit 1; }
rm -f "$OMGDB_TEST_PG_DIR/pwfile"

for _ in 1 2 3; do
  OMGDB_TEST_PG_PORT=$(omgdb_free_port)
  if "${omgdb_pg_as[@]}" "$omgdb_pg_bin/pg_ctl" -D "$OMGDB_TEST_PG_DIR/data" -l "$OMGDB_TEST_PG_DIR/server.log" -w -t 30 \
      -o "-p $OMGDB_TEST_PG_PORT -c listen_addresses=127.0.0.1 -k $OMGDB_TEST_PG_DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=40" \
      start >/dev/null; then
    break
  fi
  OMGDB_TEST_PG_PORT=
done
[ -n "$OMGDB_TEST_PG_PORT" ] || { cat "$OMGDB_TEST_PG_DIR/server.log" >&2; return 1 2>/dev/null || exit 1; }

PGPASSWORD=$OMGDB_TEST_PG_PASSWORD psql -qX -h 127.0.0.1 -p "$OMGDB_TEST_PG_PORT" -U "$OMGDB_TEST_PG_USER" -d postgres \
  -c "CREATE DATABASE $OMGDB_TEST_PG_DB" >/dev/null
export OMGDB_TEST_PG_PORT OMGDB_TEST_PG_USER OMGDB_TEST_PG_PASSWORD OMGDB_TEST_PG_DB OMGDB_TEST_PG_DIR

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  for v in OMGDB_TEST_PG_PORT OMGDB_TEST_PG_USER OMGDB_TEST_PG_PASSWORD OMGDB_TEST_PG_DB OMGDB_TEST_PG_DIR; do
    echo "$v=${!v}"
  done
  trap 'exit 0' INT TERM
  while :; do sleep 3600 & wait $! || true; done
fi
