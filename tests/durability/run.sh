#!/bin/sh
# Durability tests (issues 4, 5, 16): the restart test, the SIGKILL crash test, the damaged
# write-ahead log test and the index-build crash test against an omgdb binary.
# Usage: tests/durability/run.sh OMGDB_BINARY [crash_test.py options, e.g. --rounds 500 --max-seconds 0]
# Prints `durability: N passed, M failed` last; exits non-zero if any test failed.
set -u
if [ $# -lt 1 ]; then
    echo "usage: $0 OMGDB_BINARY [crash_test options]" >&2
    exit 2
fi
binary=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
passed=0
failed=0
if python3 "$here/restart_test.py" "$binary"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
if python3 "$here/crash_test.py" "$binary" "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
if python3 "$here/wal_corruption_test.py" "$binary"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
if python3 "$here/index_crash_test.py" "$binary" --rounds 12; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
echo "durability: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
