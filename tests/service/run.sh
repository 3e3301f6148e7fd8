#!/usr/bin/env bash
# Service tests for `omgdb serve` without a real systemd (tests/service/service_test.py).
# Usage: tests/service/run.sh /path/to/omgdb
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OMGDB_BIN=$bin
cd "$here"
exec timeout 300 python3 -W ignore::ResourceWarning -m unittest -v service_test
