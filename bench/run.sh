#!/usr/bin/env bash
# omgdb benchmarks (not part of `make test` / ctest).
#
# Usage: bench/run.sh /path/to/omgdb [--build] [more options of bench/bench.py]
#
#   (a) start-up: spawn `omgdb mcp` → initialize reply, 50 runs, vs. a /bin/cat echo baseline
#   (b) `get` by _id over stdio, 64 in flight, ~10 s, on 100,000 documents, vs. a ping baseline
#   (c) with --build: clean configure + `cmake --build -j2` of the whole project, ccache off
#
# Usage: bench/run.sh /path/to/omgdb --engine [options of bench/bench_engine.py]
#
#   Only the engine benchmarks against raw RocksDB (db_bench; installs rocksdb-tools when
#   missing), on 1,000,000 documents, a few minutes:
#   (d) filter evaluation on a full scan (count_documents) vs `db_bench readseq`, as a ratio
#   (e) import_jsonl and update_many documents/s vs `db_bench fillseq`, side by side
#   They write bench/out/engine.json.
# Usage: bench/run.sh /path/to/omgdb --index [options of bench/bench_index.py]
#   Only the index benchmark (1,000,000 documents: indexed vs full scan vs SQLite over the
#   stdio pipe, the same in one process with the `index_bench` program, which it first builds
#   in the omgdb binary's build directory, and insert_many with 0, 1, 3 indexes); writes
#   bench/out/index.json. docs/indexes.md.
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
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
args=()
engine=0
index=0
for arg in "$@"; do
  if [[ $arg == --engine ]]; then engine=1; elif [[ $arg == --index ]]; then index=1; else args+=("$arg"); fi
done
if (( engine )); then
  exec python3 "$here/bench_engine.py" "${args[@]}"
fi
if (( index )); then
  build_dir=$(dirname "${args[0]}")
  if [[ -f $build_dir/CMakeCache.txt ]]; then
    cmake --build "$build_dir" --target index_bench -j2 >&2
  fi
  exec python3 "$here/bench_index.py" "${args[@]}"
fi
exec python3 "$here/bench.py" "$@"
