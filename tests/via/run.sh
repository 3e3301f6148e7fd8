#!/usr/bin/env bash
# `omgdb mcp --via URL` against a real `omgdb serve` on a loopback port the OS picks.
# Usage: tests/via/run.sh /path/to/omgdb
set -euo pipefail
bin=${1:?usage: $0 /path/to/omgdb}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
unset OMGDB_LOG_LEVEL OMGDB_HTTP_TOKEN
exec timeout 240 python3 -W ignore::ResourceWarning "$here/test_via.py" "$bin"
