#!/usr/bin/env bash
# The `sql_servers` test: real PostgreSQL and MariaDB servers (tests/lib/start_*.sh) and a
# SQLite file, each loaded with fixture_<dialect>.sql, then the sql_server_tests binary
# (tests/sql_servers/*_test.cpp) against all three.
# Usage: run.sh <omgdb build dir> [--odbc] [doctest args]
#
# --odbc (the `sql_servers_odbc` test): the same suite through unixODBC and the servers' ODBC
# drivers (odbc-postgresql, odbc-mariadb, libsqliteodbc), registered in a private odbcinst.ini
# (ODBCSYSINI/ODBCINSTINI: no file under /etc is read or touched), plus the ODBC-only tests.
# A missing driver fails the run under CI (CI=true); elsewhere the run ends with exit 77, which
# ctest counts as a skip (never a pass), after the drivers that are there were tested.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: run.sh <omgdb build dir> [--odbc]}
shift
mode=native
if [ "${1:-}" = "--odbc" ]; then mode=odbc; shift; fi
bin=$build/sql_server_tests
[ -x "$bin" ] || { echo "sql_servers: $bin not built" >&2; exit 1; }

odbc_missing=()
if [ "$mode" = odbc ]; then
  # Debian's driver files (dpkg -L odbc-postgresql odbc-mariadb libsqliteodbc tdsodbc).
  multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
  odbc_dir=/usr/lib/$multiarch/odbc
  export ODBCSYSINI ODBCINSTINI=odbcinst.ini
  ODBCSYSINI=$(mktemp -d /tmp/omgdb-odbcinst.XXXXXX)
  : >"$ODBCSYSINI/odbcinst.ini"
  : >"$ODBCSYSINI/odbc.ini"
  export ODBCINI=$ODBCSYSINI/odbc.ini
  OMGDB_TEST_ODBC_DRIVERS=
  register() {  # register NAME DIALECT FILE
    if [ -r "$odbc_dir/$3" ]; then
      printf '[%s]\nDescription=omgdb test driver\nDriver=%s\nThreading=0\n\n' "$1" "$odbc_dir/$3" >>"$ODBCSYSINI/odbcinst.ini"
      OMGDB_TEST_ODBC_DRIVERS="$OMGDB_TEST_ODBC_DRIVERS $2"
    else
      odbc_missing+=("$3 ($1)")
    fi
  }
  register omgdb-postgres postgres psqlodbcw.so
  register omgdb-mariadb mysql libmaodbc.so
  register omgdb-sqlite sqlite libsqlite3odbc.so
  register omgdb-freetds mssql libtdsodbc.so
  export OMGDB_TEST_ODBC_DRIVERS OMGDB_TEST_TARGETS=odbc
  if [ ${#odbc_missing[@]} -gt 0 ]; then
    echo "sql_servers_odbc: ODBC driver(s) not installed: ${odbc_missing[*]} (scripts/deps.sh installs them)" >&2
    if [ "${CI:-}" = true ]; then
      echo "sql_servers_odbc: FAIL: under CI every driver must be there" >&2
      rm -rf "$ODBCSYSINI"
      exit 1
    fi
  fi
else
  export OMGDB_TEST_TARGETS=native
fi

# If this script is killed outright (SIGKILL on a ctest timeout) its EXIT trap never runs: a
# watcher runs the same stop hooks (tests/lib/start_*.sh write them to this file) once the
# script is gone. Running a hook twice is harmless.
export OMGDB_EXIT_HOOK_FILE
OMGDB_EXIT_HOOK_FILE=$(mktemp /tmp/omgdb-sql-servers-hooks.XXXXXX)
( trap '' INT TERM
  while kill -0 $$ 2>/dev/null; do sleep 1; done
  while IFS= read -r hook; do eval "$hook" || true; done <"$OMGDB_EXIT_HOOK_FILE"
  rm -f "$OMGDB_EXIT_HOOK_FILE" ) >/dev/null 2>&1 </dev/null &

t0=$(date +%s.%N)
. "$here/../lib/start_postgres.sh"
. "$here/../lib/start_mariadb.sh"
t1=$(date +%s.%N)
echo "sql_servers: PostgreSQL on 127.0.0.1:$OMGDB_TEST_PG_PORT, MariaDB on 127.0.0.1:$OMGDB_TEST_MARIADB_PORT" \
  "(started in $(python3 -c "print(round($t1 - $t0, 1))") s)"

PGPASSWORD=$OMGDB_TEST_PG_PASSWORD psql -qX -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$OMGDB_TEST_PG_PORT" \
  -U "$OMGDB_TEST_PG_USER" -d "$OMGDB_TEST_PG_DB" -f "$here/fixture_postgres.sql" >/dev/null
mariadb --no-defaults -h 127.0.0.1 -P "$OMGDB_TEST_MARIADB_PORT" -u "$OMGDB_TEST_MARIADB_USER" \
  -p"$OMGDB_TEST_MARIADB_PASSWORD" "$OMGDB_TEST_MARIADB_DB" <"$here/fixture_mariadb.sql"

sqlite_dir=$(mktemp -d /tmp/omgdb-sqlite.XXXXXX)
omgdb_add_exit_hook "rm -rf $(printf %q "$sqlite_dir")"
export OMGDB_TEST_SQLITE_FILE=$sqlite_dir/fixture.db
load_sqlite() {  # load_sqlite DB_FILE SQL_FILE
  if command -v sqlite3 >/dev/null 2>&1; then
    sqlite3 -bail "$1" <"$2"
  else
    python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(open(sys.argv[2]).read()); c.commit()' \
      "$1" "$2"
  fi
}
load_sqlite "$OMGDB_TEST_SQLITE_FILE" "$here/fixture_sqlite.sql"
# The bypass corpus (tests/sql/corpus, written with the classifier), when this tree has it:
# its fixture in a database of its own, owned by a role that is not a superuser (PostgreSQL)
# or a user without global privileges (MariaDB), as replays require.
corpus=${OMGDB_TEST_CORPUS_DIR:-$here/../sql/corpus}
if [ -f "$corpus/bypass.tsv" ]; then
  export OMGDB_TEST_CORPUS=$corpus/bypass.tsv
  export OMGDB_TEST_PG_CORPUS_DB=omgdb_corpus OMGDB_TEST_PG_CORPUS_USER=omgdb_owner
  export OMGDB_TEST_PG_CORPUS_PASSWORD=omgdb-owner-test-secret
  PGPASSWORD=$OMGDB_TEST_PG_PASSWORD psql -qX -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$OMGDB_TEST_PG_PORT" \
    -U "$OMGDB_TEST_PG_USER" -d postgres >/dev/null <<SQL
CREATE ROLE $OMGDB_TEST_PG_CORPUS_USER LOGIN PASSWORD '$OMGDB_TEST_PG_CORPUS_PASSWORD';
CREATE DATABASE $OMGDB_TEST_PG_CORPUS_DB OWNER $OMGDB_TEST_PG_CORPUS_USER;
SQL
  PGPASSWORD=$OMGDB_TEST_PG_CORPUS_PASSWORD psql -qX -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$OMGDB_TEST_PG_PORT" \
    -U "$OMGDB_TEST_PG_CORPUS_USER" -d "$OMGDB_TEST_PG_CORPUS_DB" -f "$corpus/fixture-postgres.sql" >/dev/null
  export OMGDB_TEST_MARIADB_CORPUS_DB=omgdb_corpus
  mariadb --no-defaults --socket="$OMGDB_TEST_MARIADB_SOCKET" -uroot <<SQL
CREATE DATABASE $OMGDB_TEST_MARIADB_CORPUS_DB;
GRANT ALL ON $OMGDB_TEST_MARIADB_CORPUS_DB.* TO '$OMGDB_TEST_MARIADB_USER'@'127.0.0.1';
GRANT ALL ON $OMGDB_TEST_MARIADB_CORPUS_DB.* TO '$OMGDB_TEST_MARIADB_USER'@'localhost';
SQL
  mariadb --no-defaults -h 127.0.0.1 -P "$OMGDB_TEST_MARIADB_PORT" -u "$OMGDB_TEST_MARIADB_USER" \
    -p"$OMGDB_TEST_MARIADB_PASSWORD" "$OMGDB_TEST_MARIADB_CORPUS_DB" <"$corpus/fixture-mysql.sql"
  export OMGDB_TEST_SQLITE_CORPUS_FILE=$sqlite_dir/corpus.db
  load_sqlite "$OMGDB_TEST_SQLITE_CORPUS_FILE" "$corpus/fixture-sqlite.sql"
fi

if [ "$mode" = odbc ]; then
  omgdb_add_exit_hook "rm -rf $(printf %q "$ODBCSYSINI")"
  # The native adapters' own guards were tested by the native run; here the shared suite and
  # the ODBC tests.
  status=0
  "$bin" --test-case-exclude='postgres:*,mariadb:*,sqlite:*,bypass corpus: the database layer alone*' "$@" || status=$?
  if [ $status -ne 0 ]; then exit $status; fi
  if [ ${#odbc_missing[@]} -gt 0 ]; then
    echo "sql_servers_odbc: SKIPPED (exit 77): not every ODBC driver is installed: ${odbc_missing[*]}"
    exit 77
  fi
  exit 0
fi
"$bin" --test-case-exclude='odbc*' "$@"
