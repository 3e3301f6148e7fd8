#!/usr/bin/env bash
# Installs the Debian 12 packages omgdb needs to build and test, and only the missing ones.
# Idempotent and non-interactive: a second run on a complete machine installs nothing.
set -euo pipefail

# What compiling the daemon needs (the container's build stage installs only these:
# OMGDB_DEPS_BUILD_ONLY=1; `scripts/deps.sh --list-build` prints them).
build_packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  librocksdb-dev libbson-dev libpcre2-dev libssl-dev
  libtomlplusplus-dev libcli11-dev doctest-dev
  libpq-dev libmariadb-dev libsqlite3-dev libsystemd-dev
  unixodbc-dev odbc-postgresql odbc-mariadb libsqliteodbc tdsodbc
  libstemmer-dev libhnswlib-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libyaml-cpp-dev
  libintelrdfpmath-dev
)
if [ "${1:-}" = "--list-build" ]; then
  echo "${build_packages[*]}"
  exit 0
fi
packages=("${build_packages[@]}")
if [ "${OMGDB_DEPS_BUILD_ONLY:-}" != "1" ]; then
  packages+=(
    postgresql mariadb-server mariadb-client
    nodejs npm python3 openssl
    systemd
    chromium
  )
fi
if [ "${OMGDB_DEPS_EXTRA:-}" != "" ]; then
  read -r -a extra <<<"$OMGDB_DEPS_EXTRA"
  packages+=("${extra[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done
# Tools already on PATH from elsewhere (an image's own Node.js or Python) are fine as they are.
kept=()
for p in "${missing[@]+"${missing[@]}"}"; do
  case "$p" in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
    python3) command -v python3 >/dev/null 2>&1 && continue ;;
  esac
  kept+=("$p")
done
missing=("${kept[@]+"${kept[@]}"}")
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all packages present"
  exit 0
fi
echo "deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
# Server packages (postgresql, mariadb-server) try to start their service from postinst. The
# tests start their own servers on temporary directories, so in a container without systemd
# (or any machine without a running init) a policy-rc.d forbids starting services during this
# install only; an existing policy-rc.d is left alone.
policy=/usr/sbin/policy-rc.d
if [ ! -d /run/systemd/system ] && [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee "$policy" >/dev/null
  "${sudo_cmd[@]}" chmod 755 "$policy"
  trap '"${sudo_cmd[@]}" rm -f "$policy"' EXIT
fi
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
