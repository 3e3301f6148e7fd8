#!/bin/sh
# Refuses Asio/Beast outside transports/ (docs/architecture.md, "Build and layering").
#
#   scripts/check_layering.sh SOURCE_ROOT
#
# Asio and Beast are system headers, so the per-target include views cannot hide them; this
# check runs before any library compiles (CMake target omgdb_check_layering) and fails the
# build naming each offending line. transports/ owns them; tests/transports/ tests it and
# bench/http/ measures against a bare Beast server.
root=${1:?usage: check_layering.sh SOURCE_ROOT}
cd "$root" || exit 2
found=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]boost/(asio|beast)' \
  --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.cpp.in' \
  common auth config engine sql mcp tools daemon tests 2>/dev/null | grep -v '^tests/transports/')
if [ -n "$found" ]; then
  echo "layering: only transports/ may include Asio or Beast; found:" >&2
  echo "$found" >&2
  exit 1
fi
exit 0
