#!/usr/bin/env bash
# Aggregation benchmark (issue 17; never part of `make test`): builds the `aggregate_bench`
# target, runs it (omgdb's pipeline vs SQLite in one process, top-k, $lookup with and without
# a foreign index), then mingo over the same documents in Node, and prints one JSON object
# with the ratios. Sizes default to the issue's (1,000,000 documents, 100,000 × 100,000 join).
#
#   bench/aggregate_bench.sh [--docs N] [--join N] [--runs R] [--build-dir DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
build=$root/build/release
args=()
runs=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build=$2; shift 2 ;;
    --runs) runs=$2; args+=("$1" "$2"); shift 2 ;;
    --docs|--join) args+=("$1" "$2"); shift 2 ;;
    *) echo "aggregate_bench: unknown option $1" >&2; exit 2 ;;
  esac
done
cmake --build "$build" -j 2 --target aggregate_bench >&2
work=$(mktemp -d "${TMPDIR:-/tmp}/omgdb-aggregate-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

engine=$("$build/aggregate_bench" "$work" "${args[@]}")

# shellcheck source=../tests/lib/node_env.sh
source "$root/tests/lib/node_env.sh"
require_node aggregate_bench
(cd "$root/tests/differential" && npm_install_if_stale aggregate_bench "mingo" >&2)
mingo=$(node --max-old-space-size=4096 "$here/aggregate_mingo.mjs" "$work" "$runs")

python3 - "$engine" "$mingo" <<'PY'
import json, sys
e, m = json.loads(sys.argv[1]), json.loads(sys.argv[2])
e["group"]["mingo_ms"] = m["mingo_ms"]
e["group"]["speedup_vs_mingo"] = m["mingo_ms"] / e["group"]["omgdb_ms"]
e["group"]["target_speedup_min"] = 20
e["group"]["meets_targets"] = e["group"]["ratio_vs_sqlite"] <= 1.5 and e["group"]["speedup_vs_mingo"] >= 20
print(json.dumps(e, indent=2))
PY
