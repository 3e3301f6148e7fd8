#!/usr/bin/env bash
# Differential test: omgdb's query and update language against mingo (pinned in package.json).
#
# Usage: tests/differential/run.sh /path/to/omgdb [--seed N] [--scale F] [--max-print N]
#
# Installs mingo (npm ci) into tests/differential/node_modules when it is missing or does not
# match package-lock.json, then runs differential.mjs: generated documents, filters,
# projections, sorts, updates and aggregation pipelines through both, compared canonically. Seeded (default seed
# 20261130, or DIFF_SEED); the last line is `differential: N passed, M failed`.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 /path/to/omgdb [--seed N] [--scale F] [--max-print N]" >&2
  exit 2
fi
bin=$1
shift
if [[ ! -x $bin ]]; then
  echo "differential: $bin is not an executable" >&2
  exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

# shellcheck source=../lib/node_env.sh
source "$here/../lib/node_env.sh"
require_node differential
npm_install_if_stale differential "mingo"

unset OMGDB_LOG_LEVEL
exec node differential.mjs "$bin" "$@"
