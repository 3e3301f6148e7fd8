#!/usr/bin/env bash
# The web console end to end (docs/console.md): `omgdb serve` with the console on, an agent
# over MCP HTTP, and a person in Debian's chromium (headless), driven by playwright-core from
# npm pointed at /usr/bin/chromium (no browser is ever downloaded). Also the console's
# security rules over plain HTTP. Screenshots of every page go to build/console-screenshots/.
#
# Usage: tests/console/run.sh /path/to/omgdb   (OMGDB_CONSOLE_DEBUG=1: the server log and the
# browser's POSTs on stderr)
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 /path/to/omgdb" >&2
  exit 2
fi
bin=$1
if [[ ! -x $bin ]]; then
  echo "console: $bin is not an executable" >&2
  exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
browser=${OMGDB_CHROMIUM:-/usr/bin/chromium}
if [[ ! -x $browser ]]; then
  echo "console: $browser not found: install Debian's chromium (scripts/deps.sh)" >&2
  exit 2
fi
cd "$here"

# shellcheck source=../lib/node_env.sh
source "$here/../lib/node_env.sh"
require_node console
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1  # playwright-core downloads nothing; this says so twice
npm_install_if_stale console "playwright-core"

export OMGDB_BIN=$bin OMGDB_CHROMIUM=$browser
export OMGDB_CONSOLE_SHOTS=${OMGDB_CONSOLE_SHOTS:-$root/build/console-screenshots}
mkdir -p "$OMGDB_CONSOLE_SHOTS"
unset OMGDB_LOG_LEVEL OMGDB_HTTP_TOKEN
exec node --test --test-concurrency=1 --test-reporter=spec console.test.mjs names.test.mjs security.test.mjs console_cmd.test.mjs
