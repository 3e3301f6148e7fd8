#!/usr/bin/env bash
# omgdb benchmarks (not part of `make test` / ctest).
#
# Usage: bench/run.sh /path/to/omgdb [--build] [more options of bench/bench.py]
#
#   (a) start-up: spawn `omgdb mcp` → initialize reply, 50 runs, vs. a /bin/cat echo baseline
#   (b) `get` by _id over stdio, 64 in flight, ~10 s, on 100,000 documents, vs. a ping baseline
#   (c) with --build: clean configure + `cmake --build -j2` of the whole project, ccache off
#
# Prints a report and writes bench/out/results.json. See bench/README.md.
set -euo pipefail
if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
  echo "usage: $0 /path/to/omgdb [--build] [bench.py options; --help for the list]" >&2
  [[ $# -ge 1 ]] && exec python3 "$(dirname "${BASH_SOURCE[0]}")/bench.py" --help
  exit 2
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "bench: python3 is required" >&2
  exit 2
fi
exec python3 "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bench.py" "$@"
