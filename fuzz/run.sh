#!/usr/bin/env bash
# Runs the libFuzzer targets one after another (`make fuzz`; docs/testing.md).
#
#   fuzz/run.sh BUILD_DIR [target…]      FUZZ_SECONDS per target (default 60)
#
# FUZZ_RUNS=N also stops a target after N executions (the campaign's bar is 10 million or 30
# minutes, whichever comes first: FUZZ_SECONDS=1800 FUZZ_RUNS=10000000).
#
# Each target runs under `nice -n 19` over its committed seeds (fuzz/corpus/<name>/) and its
# working corpus (BUILD_DIR/corpus/<name>/, where new inputs go; the seeds stay as they are),
# with its dictionary (fuzz/dict/<name>.dict) when there is one. A crash, leak, timeout or
# failed check lands in BUILD_DIR/findings/<name>/: minimise it, fix it, and keep it under
# fuzz/regressions/<name>/ so that `make test` replays it. The table printed at the end
# gives each target's executions, exec/s and coverage (cov, ft) from libFuzzer's last lines;
# the whole output is in BUILD_DIR/logs/<name>.log.
set -uo pipefail
build=${1:?usage: fuzz/run.sh BUILD_DIR [target…]}
shift
here=$(cd "$(dirname "$0")" && pwd)
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$here"/*.cpp; do
    n=$(basename "$f" .cpp)
    [ "$n" = replay_main ] || targets+=("$n")
  done
fi
status=0
table=$(printf '%-14s %10s %8s %7s %7s  %s' target execs exec/s cov ft result)
for t in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$t"
  if [ ! -x "$bin" ]; then
    echo "fuzz: $bin is missing (make fuzz-build)" >&2
    status=1
    continue
  fi
  work="$build/corpus/$t"
  findings="$build/findings/$t"
  mkdir -p "$work" "$findings" "$build/logs"
  # A per-input timeout is a finding; rpc_session's and search_query's inputs write to a
  # store, which a busy machine can stretch to seconds, so they get more.
  # aggregate, markdown_edit and context_pack run each input under a 64 MiB call budget (issue 29): a memory or time bomb
  # past it is a finding at 512 MB and 5 s.
  limit=${FUZZ_TIMEOUT:-10}
  rss=2048
  case "$t" in
    rpc_session|search_query) limit=${FUZZ_TIMEOUT:-60} ;;
    aggregate|markdown_edit|context_pack) limit=${FUZZ_TIMEOUT:-5}; rss=512 ;;
  esac
  args=(-max_total_time="$seconds" -timeout="$limit" -rss_limit_mb="$rss" -max_len=8192 -print_final_stats=1
        -artifact_prefix="$findings/")
  [ -n "${FUZZ_RUNS:-}" ] && args+=(-runs="$FUZZ_RUNS")
  [ -f "$here/dict/$t.dict" ] && args+=(-dict="$here/dict/$t.dict")
  seeds=()
  [ -d "$here/corpus/$t" ] && seeds+=("$here/corpus/$t")
  log="$build/logs/$t.log"
  # The previous run's log is kept beside (a campaign adds runs up: docs/testing.md).
  [ -f "$log" ] && mv "$log" "$build/logs/$t.$(date -u +%Y%m%dT%H%M%S -r "$log").log"
  echo "fuzz: $t for ${seconds}s (log $log)" >&2
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    nice -n 19 "$bin" "${args[@]}" "$work" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  result=ok
  if [ $rc -ne 0 ]; then
    result="FOUND (exit $rc): $findings/$(ls -t "$findings" | head -1)"
    status=1
  fi
  table+=$'\n'$(printf '%-14s %10s %8s %7s %7s  %s' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$result")
done
echo "$table"
exit $status
