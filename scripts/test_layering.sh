#!/bin/sh
# ctest `layering`: proves that the build refuses a forbidden include (docs/architecture.md, "Build and layering").
#
#   scripts/test_layering.sh CXX VIEW_ROOT SOURCE_ROOT
#
# 1. Each forbidden edge: a one-line file including a header that exists in the tree, compiled
#    (preprocessed) against the including target's include view, must fail with "No such file";
#    the same file against the whole tree must preprocess, so the refusal is the view's doing.
# 2. An allowed edge through a view preprocesses.
# 3. scripts/check_layering.sh refuses Asio/Beast planted outside transports/ and accepts it inside.
cxx=${1:?usage: test_layering.sh CXX VIEW_ROOT SOURCE_ROOT}
views=${2:?}
root=${3:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {  # MESSAGE: counts a failure, with the last compiler or check output when it says why
  echo "FAIL: $1" >&2
  [ "${2:-}" = with_output ] && cat "$tmp/err" >&2
  failures=$((failures + 1))
}

preprocess() {  # INCLUDE_DIR HEADER -> status; the compiler's message in $tmp/err
  printf '#include "%s"\n' "$2" > "$tmp/probe.cpp"
  # shellcheck disable=SC2086 # LAYERING_FLAGS: the system include dirs (from CMake), word-split
  "$cxx" -std=c++20 -E -I"$1" $LAYERING_FLAGS "$tmp/probe.cpp" -o /dev/null 2> "$tmp/err"
}

refused() {  # TARGET HEADER
  if [ ! -f "$root/$2" ]; then fail "$2 is not in the tree; pick a header that exists"; return; fi
  if ! preprocess "$root" "$2"; then fail "$2 does not preprocess against the whole tree:" with_output; return; fi
  if preprocess "$views/$1" "$2"; then
    fail "$1 may include $2 (its view should hide it)"
  elif grep -q "No such file" "$tmp/err"; then
    echo "ok: $1 cannot include $2"
  else
    fail "$1 including $2 failed for another reason:" with_output
  fi
}

allowed() {  # TARGET HEADER
  if preprocess "$views/$1" "$2"; then echo "ok: $1 includes $2"; else fail "$1 cannot include $2:" with_output; fi
}

refused omgdb_engine mcp/tool.hpp
refused omgdb_engine mcp/server.hpp
refused omgdb_engine sql/service.hpp
refused omgdb_engine tools/catalog.hpp
refused omgdb_engine transports/http_server.hpp
refused omgdb_sql engine/store/store.hpp
refused omgdb_sql mcp/server.hpp
refused omgdb_sql transports/http_server.hpp
refused omgdb_mcp engine/store/store.hpp
refused omgdb_mcp sql/service.hpp
refused omgdb_mcp tools/catalog.hpp
refused omgdb_transports engine/store/store.hpp
refused omgdb_common auth/scope.hpp
allowed omgdb_engine common/result.hpp
allowed omgdb_engine engine/store/store.hpp
allowed omgdb_tools engine/store/store.hpp
allowed omgdb_tools mcp/server.hpp
allowed omgdb_transports mcp/server.hpp

# The Asio/Beast check, on a planted tree.
plant="$tmp/tree"
mkdir -p "$plant/engine" "$plant/transports"
printf '#include <boost/asio/io_context.hpp>\n' > "$plant/transports/ok.cpp"
if "$root/scripts/check_layering.sh" "$plant" 2> "$tmp/err"; then
  echo "ok: transports/ may include Asio"
else
  fail "check_layering refused Asio in transports/:" with_output
fi
printf '#include "common/result.hpp"\n#include <boost/beast/http.hpp>\n' > "$plant/engine/bad.cpp"
if "$root/scripts/check_layering.sh" "$plant" 2> "$tmp/err"; then
  fail "check_layering accepted Beast in engine/"
elif grep -q "engine/bad.cpp:2" "$tmp/err"; then
  echo "ok: engine/ cannot include Beast"
else
  fail "check_layering's message does not name engine/bad.cpp:2:" with_output
fi

[ "$failures" -eq 0 ] || { echo "$failures layering check(s) failed" >&2; exit 1; }
