#!/usr/bin/env bash
# HTTP transport tests for `omgdb serve`: raw HTTP rules (Python 3 standard library) and the
# official MCP TypeScript SDK's Streamable HTTP client (the SDK tests/interop installs).
#
# Usage: tests/http/run.sh /path/to/omgdb
#
# Every daemon listens on 127.0.0.1 with a port the OS picks; every wait is bounded.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 /path/to/omgdb" >&2
  exit 2
fi
bin=$1
if [[ ! -x $bin ]]; then
  echo "http: $bin is not an executable" >&2
  exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
interop=$(cd "$here/../interop" && pwd)

for tool in python3 node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "http: $tool not found on PATH" >&2
    exit 2
  fi
done

export OMGDB_BIN=$bin
unset OMGDB_HTTP_TOKEN OMGDB_LOG_LEVEL

echo "== raw HTTP rules (python3 unittest)"
(cd "$here" && timeout 600 python3 -W ignore::ResourceWarning -m unittest -v test_status test_security test_streams test_limits test_modern test_call_limits test_shutdown)

echo "== TypeScript SDK StreamableHTTPClientTransport"
if [[ ! -f $interop/node_modules/@modelcontextprotocol/sdk/package.json ]]; then
  echo "http: installing the MCP SDK (npm ci) in $interop"
  (cd "$interop" && npm ci --no-audit --no-fund)
fi
cd "$here"
exec timeout 180 node --test --test-reporter=spec sdk.test.mjs
