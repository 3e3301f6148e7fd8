#!/usr/bin/env bash
# Interop tests: the official MCP TypeScript SDK clients against the real binary: v1
# (@modelcontextprotocol/sdk) over stdio (stdio.test.mjs), and v2 (@modelcontextprotocol/client,
# 2026-07-28 pinned and auto) plus v1 over stdio and HTTP (modern.test.mjs).
#
# Usage: tests/interop/run.sh /path/to/omgdb
#
# Installs the pinned SDK (npm ci) into tests/interop/node_modules when it is missing or does
# not match package-lock.json, then runs stdio.test.mjs with node's built-in test runner.
# Exits non-zero when a test fails or the tools are missing.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 /path/to/omgdb" >&2
  exit 2
fi
bin=$1
if [[ ! -x $bin ]]; then
  echo "interop: $bin is not an executable" >&2
  exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

# shellcheck source=../lib/node_env.sh
source "$here/../lib/node_env.sh"
require_node interop
npm_install_if_stale interop "the MCP SDK"

export OMGDB_BIN=$bin
# Never let a developer's log level change what the server writes to stderr mid-test.
unset OMGDB_LOG_LEVEL
exec node --test --test-reporter=spec stdio.test.mjs modern.test.mjs
