#!/usr/bin/env bash
# Load test (part of `make test`): 200 concurrent MCP clients over Streamable HTTP for 60 s
# against a real `omgdb serve` on a loopback port the OS picks; zero failed calls allowed.
# LOAD_CLIENTS and LOAD_SECONDS override the defaults for a quick local run.
#
# Usage: tests/load/run.sh /path/to/omgdb
set -euo pipefail
bin=${1:?usage: $0 /path/to/omgdb}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec timeout 300 python3 "$here/load.py" "$bin" --clients "${LOAD_CLIENTS:-200}" --seconds "${LOAD_SECONDS:-60}"
