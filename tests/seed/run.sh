#!/usr/bin/env bash
# Runs the seed's copy-paste session verbatim (tests/seed/session.sh) with the binary under
# test first on PATH, then checks the documented answers (tests/seed/check.py).
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
# The copy must stay verbatim: compare with the seed when the shared folder is beside us.
seed=$(ls "$here"/../../../shared/seeds/000_*.txt 2>/dev/null | head -1 || true)
if [ -n "$seed" ]; then
  python3 "$here/check.py" --compare-seed "$seed" "$here/session.sh"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
ln -s "$bin" "$tmp/bin/omgdb"
cd "$tmp"
PATH="$tmp/bin:$PATH" bash "$here/session.sh" >"$tmp/out.txt" 2>"$tmp/err.txt" || {
  echo "session failed:"; cat "$tmp/err.txt"; exit 1; }
python3 "$here/check.py" "$tmp/out.txt"
