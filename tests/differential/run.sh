#!/usr/bin/env bash
# Differential test: omgdb's query and update language against mingo (pinned in package.json).
#
# Usage: tests/differential/run.sh /path/to/omgdb [--seed N] [--scale F] [--max-print N]
#
# Installs mingo (npm ci) into tests/differential/node_modules when it is missing or does not
# match package-lock.json, then runs differential.mjs: generated documents, filters,
# projections, sorts and updates through both, compared canonically. Seeded (default seed
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

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "differential: $tool not found on PATH (Node.js >= 20 is required)" >&2
    exit 2
  fi
done
node_major=$(node -p 'process.versions.node.split(".")[0]')
if (( node_major < 20 )); then
  echo "differential: Node.js >= 20 is required, found $(node --version)" >&2
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
  echo "differential: installing mingo (npm ci) in $here"
  npm ci --no-audit --no-fund
fi

unset OMGDB_LOG_LEVEL
exec node differential.mjs "$bin" "$@"
