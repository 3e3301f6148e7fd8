#!/usr/bin/env bash
# `cmake --install` lays out what the Debian package ships: the binary, the units, the
# example config, the man page and the docs; the installed binary accepts the installed config.
# Usage: tests/service/install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DESTDIR=$tmp cmake --install "$build" --prefix /usr >/dev/null
failed=0
for f in usr/bin/omgdb usr/lib/systemd/system/omgdb.service usr/lib/systemd/system/omgdb.socket \
         etc/omgdb/omgdb.toml usr/share/man/man1/omgdb.1 usr/share/doc/omgdb/config.md usr/share/doc/omgdb/service.md; do
  [ -e "$tmp/$f" ] || { echo "FAIL: $f is not installed"; failed=1; }
done
cmp -s "$tmp/etc/omgdb/omgdb.toml" "$src/config/omgdb.toml" || { echo "FAIL: the installed config differs"; failed=1; }
grep -q '^ExecStart=/usr/bin/omgdb serve --config /etc/omgdb/omgdb.toml$' "$tmp/usr/lib/systemd/system/omgdb.service" ||
  { echo "FAIL: the unit does not run the installed binary with the installed config"; failed=1; }
env -i HOME="$tmp" "$tmp/usr/bin/omgdb" config check --config "$tmp/etc/omgdb/omgdb.toml" >/dev/null ||
  { echo "FAIL: the installed binary rejects the installed config"; failed=1; }
for script in postinst prerm; do
  sh -n "$src/packaging/$script" || { echo "FAIL: packaging/$script is not valid sh"; failed=1; }
  [ -x "$src/packaging/$script" ] || { echo "FAIL: packaging/$script is not executable"; failed=1; }
done
grep -q 'useradd --system' "$src/packaging/postinst" || { echo "FAIL: postinst creates no service user"; failed=1; }
[ $failed -eq 0 ] && echo "install: ok"
exit $failed
