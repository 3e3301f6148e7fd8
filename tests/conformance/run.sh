#!/usr/bin/env bash
# The official MCP conformance suite (npm @modelcontextprotocol/conformance, server scenarios,
# suite "all") against a real `omgdb serve --no-auth --conformance-fixtures` on a loopback port
# the OS picks, twice: 0.1.16's suite "all" (the legacy revisions; expected failures, each with
# its reason, in baseline.yml) and 0.2.0-alpha.12's `--requirements 2026-07-28` (the stateless
# revision; baseline-2026-07-28.yml). The suites need Node 22: it comes from npm (package
# `node`), pinned in package-lock.json next to the suites.
#
# Usage: tests/conformance/run.sh /path/to/omgdb
set -euo pipefail

bin=${1:?usage: $0 /path/to/omgdb}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

# shellcheck source=../lib/node_env.sh
source "$here/../lib/node_env.sh"
require_node conformance
npm_install_if_stale conformance "the conformance suite and Node 22"
node22=$here/node_modules/.bin/node
if ! "$node22" --version | grep -q '^v22\.'; then
  echo "conformance: the npm package node@22 did not provide a Node 22 binary" >&2
  exit 2
fi

work=$(mktemp -d)
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/state"
unset OMGDB_LOG_LEVEL
"$bin" serve --no-auth --conformance-fixtures --listen 127.0.0.1:0 --state-dir "$work/state" \
  2>"$work/server.err" &
server_pid=$!
url=
for _ in $(seq 1 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$work/server.err" | head -1 || true)
  [[ -n $url ]] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.err" >&2; exit 1; }
  sleep 0.1
done
[[ -n $url ]] || { echo "conformance: the server did not print its URL" >&2; cat "$work/server.err" >&2; exit 1; }

status=0
echo "== conformance 0.1.16, suite all (2024-11-05 … 2025-11-25)"
PATH="$here/node_modules/.bin:$PATH" "$node22" node_modules/@modelcontextprotocol/conformance/dist/index.js \
  server --url "$url" --suite all --expected-failures baseline.yml -o "$work/results" || status=$?
echo "== conformance 0.2.0-alpha.12, the requirements of 2026-07-28 (stateless)"
PATH="$here/node_modules/.bin:$PATH" "$node22" node_modules/conformance-2026-07-28/dist/index.js \
  server --url "$url" --requirements 2026-07-28 --expected-failures baseline-2026-07-28.yml \
  -o "$work/results-2026-07-28" || status=$?
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "conformance: the server died during the suite" >&2
  cat "$work/server.err" >&2
  exit 1
fi
exit $status
