#!/usr/bin/env bash
# Starts a throw-away MariaDB server for tests: a temporary data directory, a random free
# loopback port, a password user and database, durability off. Stops it and removes the
# directory on exit.
#
# Sourced (`. tests/lib/start_mariadb.sh`): exports OMGDB_TEST_MARIADB_PORT, _USER, _PASSWORD,
# _DB, _DIR and _SOCKET, and registers the stop in the caller's EXIT trap (composable with the
# other start_*.sh scripts). Executed: prints them as `NAME=value` lines and serves until
# interrupted. As root the server runs with --user=root (no service account needed).
set -euo pipefail

command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || { echo "start_mariadb: mariadbd not found (apt-get install mariadb-server)" >&2; return 1 2>/dev/null || exit 1; }
omgdb_mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)

. "$(dirname "${BASH_SOURCE[0]}")/exit_hooks.sh"

OMGDB_TEST_MARIADB_DIR=$(mktemp -d /tmp/omgdb-mariadb.XXXXXX)
OMGDB_TEST_MARIADB_SOCKET=$OMGDB_TEST_MARIADB_DIR/mysqld.sock
OMGDB_TEST_MARIADB_USER=omgdb
OMGDB_TEST_MARIADB_PASSWORD=omgdb-mariadb-test-secret
OMGDB_TEST_MARIADB_DB=omgdb_test
omgdb_my_user=$(id -un)
omgdb_my_dir_q=$(printf %q "$OMGDB_TEST_MARIADB_DIR")
omgdb_add_exit_hook "if [ -s $omgdb_my_dir_q/mysqld.pid ]; then kill \$(cat $omgdb_my_dir_q/mysqld.pid) 2>/dev/null; for _ in \$(seq 50); do [ -e $omgdb_my_dir_q/mysqld.pid ] || break; sleep 0.1; done; fi; rm -rf $omgdb_my_dir_q"

mariadb-install-db --no-defaults --datadir="$OMGDB_TEST_MARIADB_DIR/data" --user="$omgdb_my_user" \
  --auth-root-authentication-method=socket --skip-test-db --skip-name-resolve \
  >"$OMGDB_TEST_MARIADB_DIR/install.log" 2>&1 \
  || { cat "$OMGDB_TEST_MARIADB_DIR/install.log" >&2; return 1 2>/dev/null || exit 1; }

omgdb_my_started=
for _ in 1 2 3; do
  OMGDB_TEST_MARIADB_PORT=$(omgdb_free_port)
  "$omgdb_mariadbd" --no-defaults --user="$omgdb_my_user" --datadir="$OMGDB_TEST_MARIADB_DIR/data" \
    --socket="$OMGDB_TEST_MARIADB_SOCKET" --port="$OMGDB_TEST_MARIADB_PORT" --bind-address=127.0.0.1 \
    --pid-file="$OMGDB_TEST_MARIADB_DIR/mysqld.pid" --log-error="$OMGDB_TEST_MARIADB_DIR/server.log" \
    --skip-name-resolve --skip-log-bin --innodb-buffer-pool-size=32M --innodb-log-file-size=16M \
    --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --sync-binlog=0 --max-connections=60 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci >/dev/null 2>&1 &
  omgdb_my_pid=$!
  for _ in $(seq 150); do
    if mariadb-admin --no-defaults --socket="$OMGDB_TEST_MARIADB_SOCKET" -uroot ping >/dev/null 2>&1; then
      omgdb_my_started=1; break
    fi
    kill -0 "$omgdb_my_pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -z "$omgdb_my_started" ] || break
  kill "$omgdb_my_pid" 2>/dev/null || true
  wait "$omgdb_my_pid" 2>/dev/null || true
done
[ -n "$omgdb_my_started" ] || { cat "$OMGDB_TEST_MARIADB_DIR/server.log" >&2; return 1 2>/dev/null || exit 1; }

mariadb --no-defaults --socket="$OMGDB_TEST_MARIADB_SOCKET" -uroot <<SQL
CREATE DATABASE $OMGDB_TEST_MARIADB_DB;
CREATE USER '$OMGDB_TEST_MARIADB_USER'@'127.0.0.1' IDENTIFIED BY '$OMGDB_TEST_MARIADB_PASSWORD';
CREATE USER '$OMGDB_TEST_MARIADB_USER'@'localhost' IDENTIFIED BY '$OMGDB_TEST_MARIADB_PASSWORD';
GRANT ALL ON $OMGDB_TEST_MARIADB_DB.* TO '$OMGDB_TEST_MARIADB_USER'@'127.0.0.1';
GRANT ALL ON $OMGDB_TEST_MARIADB_DB.* TO '$OMGDB_TEST_MARIADB_USER'@'localhost';
SQL
export OMGDB_TEST_MARIADB_PORT OMGDB_TEST_MARIADB_USER OMGDB_TEST_MARIADB_PASSWORD OMGDB_TEST_MARIADB_DB \
  OMGDB_TEST_MARIADB_DIR OMGDB_TEST_MARIADB_SOCKET

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  for v in OMGDB_TEST_MARIADB_PORT OMGDB_TEST_MARIADB_USER OMGDB_TEST_MARIADB_PASSWORD OMGDB_TEST_MARIADB_DB \
      OMGDB_TEST_MARIADB_DIR OMGDB_TEST_MARIADB_SOCKET; do
    echo "$v=${!v}"
  done
  trap 'exit 0' INT TERM
  while :; do sleep 3600 & wait $! || true; done
fi
