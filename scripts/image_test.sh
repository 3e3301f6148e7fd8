#!/usr/bin/env bash
# `make image-test`: builds the container image here, with no registry to pull from, and runs
# the seed's copy-paste session inside it (docs/service.md, "Container").
#
#   1. the two bases from Debian's own packages: mmdebstrap writes a tarball of bookworm with
#      the build packages (scripts/deps.sh --list-build), another with the runtime libraries
#      (the Dockerfile's RUNTIME_PACKAGES), each imported with `podman import`; both are kept
#      (build/image/*.tar and the local images) and made again only when missing;
#   2. `podman build` of the Dockerfile with BASE and RUNTIME_BASE set to them (no network is
#      needed: the bases hold every package);
#   3. the image's default command (`mcp --standalone`) answers initialize and tools/list, and
#      tests/seed/session.sh, run in the image as its user, gives the documented answers
#      (tests/seed/check.py).
# Prints how long each step took. Needs root (or a rootless podman set up), podman, buildah's
# storage and mmdebstrap (`make image-test` installs them through scripts/deps.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/image
mkdir -p "$out"
cd "$root"
image=${OMGDB_IMAGE:-localhost/omgdb:test}
runtime_packages=$(sed -n '/^ARG RUNTIME_PACKAGES=/,/"$/p' Dockerfile | tr -d '\\"' | sed 's/^ARG RUNTIME_PACKAGES=//' | tr -s ' \n' ' ')
# Containers get explicit limits (podman's defaults exceed what an unprivileged sandbox may set),
# and runc where it is installed (crun refuses hybrid cgroup v1/v2 hosts).
limits=(--ulimit nofile=4096:4096 --ulimit nproc=4096:4096)
podman=(podman)
if command -v runc >/dev/null 2>&1; then podman=(podman --runtime runc); fi
step() { printf 'image-test: %-48s' "$1"; t0=$(date +%s); }
done_step() { echo "$(( $(date +%s) - t0 )) s"; }

base() {  # base NAME VARIANT PACKAGES…
  local name=$1 variant=$2
  shift 2
  if podman image exists "localhost/$name"; then
    echo "image-test: localhost/$name exists (podman rmi it to make it again)"
    return
  fi
  step "mmdebstrap $name"
  if [ ! -s "$out/$name.tar" ]; then
    mmdebstrap --mode=unshare --quiet --variant="$variant" --include="$(echo "$*" | tr -s ' ' ',')" \
      --aptopt='Apt::Install-Recommends "false"' bookworm "$out/$name.tmp.tar" >"$out/$name.log" 2>&1 \
      || { tail -20 "$out/$name.log"; exit 1; }
    mv "$out/$name.tmp.tar" "$out/$name.tar"
  fi
  done_step
  step "podman import $name"
  podman import --quiet "$out/$name.tar" "localhost/$name" >/dev/null
  done_step
}

base omgdb-build-base apt $(bash scripts/deps.sh --list-build)
base omgdb-runtime-base minbase $runtime_packages

step "podman build $image"
# The compiler cache of this machine's builds (CCACHE_DIR, else ccache's default) is lent to the
# build stage: the sources are compiled under /src, and ccache's base directory makes that the
# same as any checkout.
cache=${CCACHE_DIR:-$HOME/.cache/ccache}
mkdir -p "$cache"
"${podman[@]}" build --quiet --network=none "${limits[@]}" -v "$cache:/ccache" --build-arg CCACHE_DIR=/ccache \
  --build-arg BASE=localhost/omgdb-build-base \
  --build-arg RUNTIME_BASE=localhost/omgdb-runtime-base -t "$image" . >"$out/build.log" 2>&1 \
  || { echo; tail -30 "$out/build.log"; exit 1; }
done_step

step "the default command lists the tools"
listed=$(printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"image-test","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | "${podman[@]}" run --rm -i --network=none "${limits[@]}" "$image")
echo "$listed" | python3 -c '
import json, sys
replies = {m["id"]: m for m in map(json.loads, sys.stdin.read().splitlines())}
assert replies[1]["result"]["serverInfo"]["name"] == "omgdb", replies[1]
tools = [t["name"] for t in replies[2]["result"]["tools"]]
assert "find" in tools and "insert" in tools, tools
' || { echo "unexpected answer: $listed"; exit 1; }
done_step

step "the seed session in the image"
"${podman[@]}" run --rm -i --network=none "${limits[@]}" --entrypoint bash -v "$root/tests/seed:/seed:ro" "$image" \
  -c 'cd /data && bash /seed/session.sh' >"$out/seed.out" 2>"$out/seed.err" \
  || { echo; cat "$out/seed.err"; exit 1; }
python3 tests/seed/check.py "$out/seed.out" >/dev/null || { python3 tests/seed/check.py "$out/seed.out"; exit 1; }
done_step
echo "image-test: $image passed ($(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}'))"
