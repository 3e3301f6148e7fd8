#!/usr/bin/env bash
# executeSql of a 1,000-row SELECT over stdio: calls per second and latency percentiles for
# omgdb and, side by side, the archived reference PostgreSQL MCP server
# (npm @modelcontextprotocol/server-postgres), on the same throw-away PostgreSQL database.
# Usage: bench/sql_run.sh <omgdb binary> [--calls N] [--rounds N] [--compare <other omgdb binary>].
# Writes bench/out/sql_results.json.
# The reference server is installed with npm into bench/out/node (skipped, and said so, when
# npm cannot install it).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${1:?usage: bench/sql_run.sh <omgdb binary> [--calls N]}
shift
mkdir -p "$here/out"
. "$here/../tests/lib/start_postgres.sh"
PGPASSWORD=$OMGDB_TEST_PG_PASSWORD psql -qX -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$OMGDB_TEST_PG_PORT" \
  -U "$OMGDB_TEST_PG_USER" -d "$OMGDB_TEST_PG_DB" >/dev/null <<'SQL'
CREATE TABLE bench_rows (id integer PRIMARY KEY, name text NOT NULL, amount numeric(12,2), ratio double precision,
                         created timestamptz NOT NULL, note text);
INSERT INTO bench_rows SELECT n, 'name-' || n, n * 1.25, n / 7.0, timestamptz '2026-01-01' + n * interval '1 minute',
                              CASE WHEN n % 3 = 0 THEN NULL ELSE repeat('x', 20) END FROM generate_series(1, 1000) n;
SQL
ref="$here/out/node/node_modules/@modelcontextprotocol/server-postgres/dist/index.js"
if [ ! -f "$ref" ]; then
  npm install --silent --no-audit --no-fund --prefix "$here/out/node" @modelcontextprotocol/server-postgres@0.6.2 \
    >/dev/null 2>&1 || echo "sql bench: could not install the reference server with npm; measuring omgdb only" >&2
fi
work=$(mktemp -d "$here/out/sqlwork-XXXXXX")
omgdb_add_exit_hook "rm -rf $(printf %q "$work")"
python3 "$here/sql_bench.py" "$bin" "$work" "$ref" "$@"
