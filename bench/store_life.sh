#!/bin/sh
# The store-life benchmark of issue 31 (not a timed test): builds store_life_bench and prints
#   1. the 60,000 x 8 KB $set update_many: seconds, peak RSS growth; then the next open's time
#      and peak RSS after a clean exit
#   2. the same with SIGKILL right after the write returned; the next open after the crash
#   3. 200,000 updates of a small collection under retention: store size / compacted size
# Usage: bench/store_life.sh [BUILD_DIR] [WORK_DIR]
set -eu
build=${1:-build/release}
work=${2:-$(mktemp -d /tmp/omgdb-store-life.XXXXXX)}
cmake --build "$build" --target store_life_bench >/dev/null
bin="$build/store_life_bench"
echo "# clean exit after the large write"
"$bin" large "$work/large.omgdb"
"$bin" open "$work/large.omgdb"
echo "# SIGKILL right after the large write returned"
"$bin" large "$work/killed.omgdb" --kill || true
"$bin" open "$work/killed.omgdb"
echo "# retention over 200,000 updates"
"$bin" retention "$work/ret.omgdb" "${UPDATES:-200000}"
rm -rf "$work"
