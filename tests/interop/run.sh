#!/usr/bin/env bash
# Interop test: the official MCP TypeScript SDK client against `omgdb mcp` over stdio.
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

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "interop: $tool not found on PATH (Node.js >= 20 is required)" >&2
    exit 2
  fi
done
node_major=$(node -p 'process.versions.node.split(".")[0]')
if (( node_major < 20 )); then
  echo "interop: Node.js >= 20 is required, found $(node --version)" >&2
  exit 2
fi

# node_modules is current when npm's hidden lockfile lists exactly the packages of
# package-lock.json (the hidden one has no root entry; everything else is identical).
lock_is_current() {
  [[ -f node_modules/.package-lock.json ]] || return 1
  node -e '
    const fs = require("fs");
    const want = JSON.parse(fs.readFileSync("package-lock.json", "utf8")).packages || {};
    const have = JSON.parse(fs.readFileSync("node_modules/.package-lock.json", "utf8")).packages || {};
    delete want[""];
    delete have[""];
    const keys = new Set([...Object.keys(want), ...Object.keys(have)]);
    for (const k of keys) {
      if (JSON.stringify(want[k]) !== JSON.stringify(have[k])) process.exit(1);
    }
  ' 2>/dev/null
}

if ! lock_is_current; then
  echo "interop: installing the MCP SDK (npm ci) in $here"
  npm ci --no-audit --no-fund
fi

export OMGDB_BIN=$bin
# Never let a developer's log level change what the server writes to stderr mid-test.
unset OMGDB_LOG_LEVEL
exec node --test --test-reporter=spec stdio.test.mjs
