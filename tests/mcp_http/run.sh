#!/usr/bin/env bash
# `omgdb mcp --http` (stdio and HTTP in one process) and HTTPS for the HTTP listener.
# Python 3 standard library and the openssl command line (test certificates); every daemon
# listens on a port the OS picks and every wait is bounded.
# Usage: tests/mcp_http/run.sh /path/to/omgdb
set -euo pipefail
bin=${1:?usage: $0 /path/to/omgdb}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for tool in python3 openssl; do
  command -v "$tool" >/dev/null 2>&1 || { echo "mcp_http: $tool not found on PATH" >&2; exit 2; }
done
export OMGDB_BIN=$bin
unset OMGDB_LOG_LEVEL OMGDB_HTTP_TOKEN
cd "$here"
exec timeout 300 python3 -W ignore::ResourceWarning -m unittest -v test_mcp_http test_tls test_stdio_lines test_stdio_shutdown
