#!/usr/bin/env bash
# End-to-end test of the SQL tools: the real omgdb binary over stdio with a config declaring
# SQLite (and, when the PostgreSQL/MariaDB servers and adapters are available, PostgreSQL
# and MariaDB) connections; approvals decided with the real `omgdb approvals` CLI.
# Usage: run.sh <omgdb binary>. OMGDB_E2E_DIALECTS=sqlite limits the dialects.
#
# A dialect whose server is not installed is never a silent pass: under CI (CI=true) the run
# fails at once; elsewhere the dialects that are there are tested and the run ends with exit
# 77, which ctest counts as a skip (SKIP_RETURN_CODE in CMakeLists.txt). scripts/deps.sh
# installs both servers.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${1:?usage: run.sh <omgdb binary>}
dialects=${OMGDB_E2E_DIALECTS:-sqlite,postgres,mysql}

# If this script is killed outright (a ctest timeout), its EXIT trap never runs: a watcher runs
# the stop hooks that tests/lib/start_*.sh append to this file once the script is gone.
export OMGDB_EXIT_HOOK_FILE
OMGDB_EXIT_HOOK_FILE=$(mktemp /tmp/omgdb-sqle2e-hooks.XXXXXX)
( trap '' INT TERM
  while kill -0 $$ 2>/dev/null; do sleep 1; done
  while IFS= read -r hook; do eval "$hook" || true; done <"$OMGDB_EXIT_HOOK_FILE"
  rm -f "$OMGDB_EXIT_HOOK_FILE" ) >/dev/null 2>&1 </dev/null &

missing=()
if [[ $dialects == *postgres* ]] && [ ! -x /usr/lib/postgresql/15/bin/postgres ]; then
  missing+=("PostgreSQL 15 (/usr/lib/postgresql/15/bin/postgres: apt-get install postgresql)")
fi
if [[ $dialects == *mysql* ]] && ! command -v mariadb-install-db >/dev/null 2>&1; then
  missing+=("MariaDB (mariadb-install-db: apt-get install mariadb-server mariadb-client)")
fi
for m in "${missing[@]+"${missing[@]}"}"; do echo "sql_e2e: not installed: $m" >&2; done
if [ ${#missing[@]} -gt 0 ] && [ "${CI:-}" = true ]; then
  echo "sql_e2e: FAIL: under CI every database server must be there (scripts/deps.sh installs them)" >&2
  exit 1
fi
if [[ $dialects == *postgres* ]] && [ -x /usr/lib/postgresql/15/bin/postgres ]; then
  . "$here/../lib/start_postgres.sh"
fi
if [[ $dialects == *mysql* ]] && command -v mariadb-install-db >/dev/null 2>&1; then
  . "$here/../lib/start_mariadb.sh"
fi
work=$(mktemp -d /tmp/omgdb-sqle2e.XXXXXX)
if declare -F omgdb_add_exit_hook >/dev/null; then
  omgdb_add_exit_hook "rm -rf $(printf %q "$work")"
else
  echo "rm -rf $(printf %q "$work")" >>"$OMGDB_EXIT_HOOK_FILE"
  trap 'rm -rf "$work"' EXIT
fi
export OMGDB_E2E_DIALECTS=$dialects
python3 "$here/e2e.py" "$bin" "$work"  # exits 77 itself when a dialect's adapter is missing
if [ ${#missing[@]} -gt 0 ]; then
  echo "sql_e2e: SKIPPED (exit 77): the dialects above were not tested" >&2
  exit 77
fi
