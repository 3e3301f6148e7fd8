#!/usr/bin/env bash
# Times `make run` in a fresh clone from the start to the daemon listening (bench/README.md,
# "Build time"), then stops the daemon.
#
#   [BRANCH=name] scripts/time_make_run.sh REPO CLONE_DIR CCACHE_DIR
#
# REPO is cloned into CLONE_DIR (which must not exist); the build's compiler cache is
# CCACHE_DIR (an empty or missing one measures a cold build, one filled by another clone a
# warm one). HOME is a scratch directory, so the default store and token are created anew,
# and the daemon listens on a free loopback port. Prints the seconds to "listening", the CPU
# seconds make and everything under it used (the compilers: what a busy machine changes
# least), the machine's load average before and after, ccache's hits and misses, and the
# compile steps ninja ran; exit status 1 when `make run` ended before listening or took over
# 3 hours.
set -u
repo=$1 clone=$2 cache=$3
[ -e "$clone" ] && { echo "time_make_run: $clone exists" >&2; exit 2; }
home=$(mktemp -d)
log=$(mktemp)
cpu=$(mktemp)
trap 'rm -rf "$home"; rm -f "$log" "$cpu"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$cache"
CCACHE_DIR=$cache ccache -z >/dev/null
start=$(date +%s.%N)
git clone -q ${BRANCH:+-b "$BRANCH"} "$repo" "$clone" || exit 1
cd "$clone" || exit 1
# setsid: the make, ninja and the daemon form one process group, stopped together below;
# /usr/bin/time stays outside it and reports their CPU time once they are gone.
HOME=$home CCACHE_DIR=$cache LISTEN=127.0.0.1:$port /usr/bin/time -o "$cpu" -f '%U %S' setsid make run >"$log" 2>&1 &
pid=$!
status=1
while kill -0 "$pid" 2>/dev/null; do
  if grep -q '^omgdb: listening on' "$log"; then status=0; break; fi
  if [ "$(echo "$(date +%s.%N) - $start > 10800" | bc)" = 1 ]; then break; fi
  sleep 0.5
done
end=$(date +%s.%N)
group=$(pgrep -P "$pid" | head -1)
[ -n "$group" ] && kill -TERM -- -"$group" 2>/dev/null
wait "$pid" 2>/dev/null
[ $status -eq 0 ] || { echo "time_make_run: make run did not reach listening:" >&2; tail -20 "$log" >&2; }
printf 'seconds to listening: %.0f\n' "$(echo "$end - $start" | bc)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cpu seconds (user + sys): $(tail -1 "$cpu" | awk '{print $1 + $2}')"
echo "compile steps: $(grep -c 'Building CXX object' "$log")"
CCACHE_DIR=$cache ccache -s | grep -E 'Hits|Misses' | head -3
exit $status
