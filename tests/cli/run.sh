#!/usr/bin/env bash
# Command-line behaviour of the real binary: direct commands, exit statuses, messages, the
# store lock, and stdio process rules (stdout purity, exit on end of input, SIGTERM).
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${holder:-}" ] && kill "$holder" 2>/dev/null' EXIT
cd "$tmp"
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
expect_eq() { [ "$2" == "$3" ] && ok || bad "$1: got [$2], want [$3]"; }
expect_has() { case "$2" in *"$3"*) ok ;; *) bad "$1: [$2] lacks [$3]" ;; esac; }

# An unrecognized scope aborts before reading stdin, with a clear message and no stdout.
out=$(echo '{"jsonrpc":"2.0","id":1,"method":"ping"}' | "$bin" mcp --scope admin 2>err.txt); st=$?
expect_eq "bad scope status" "$st" 2
expect_eq "bad scope stdout" "$out" ""
expect_has "bad scope message" "$(cat err.txt)" 'unknown scope `admin`'

# A missing store is named, with the command that creates it.
"$bin" find missing.omgdb users >out.txt 2>err.txt; st=$?
expect_eq "missing store status" "$st" 1
expect_has "missing store message" "$(cat err.txt)" 'no store at `missing.omgdb`: create one with `omgdb create missing.omgdb`'

# create, insert, get, find, inspect, dump.
expect_eq "create" "$("$bin" create app.omgdb)" "created store app.omgdb"
"$bin" create app.omgdb >/dev/null 2>err.txt; st=$?
expect_eq "create twice status" "$st" 1
expect_has "create twice message" "$(cat err.txt)" "app.omgdb"
expect_eq "insert" "$("$bin" insert app.omgdb users '{"_id":"u1","name":"ana","age":30}')" '{"insertedId":"u1"}'
expect_eq "insert int id" "$("$bin" insert app.omgdb users '{"_id":7,"name":"bo","age":20}')" '{"insertedId":7}'
out=$("$bin" insert app.omgdb users '{"name":"cy"}')
[[ "$out" =~ ^\{\"insertedId\":\{\"\$oid\":\"[0-9a-f]{24}\"\}\}$ ]] && ok || bad "generated ObjectId: $out"
"$bin" insert app.omgdb users '{"_id":7}' >/dev/null 2>err.txt; st=$?
expect_eq "duplicate insert status" "$st" 1
expect_has "duplicate insert message" "$(cat err.txt)" "duplicate _id 7"
"$bin" insert app.omgdb users '{"name":' >/dev/null 2>err.txt; st=$?
expect_eq "bad JSON status" "$st" 2
expect_has "bad JSON message" "$(cat err.txt)" "not valid JSON"
expect_eq "get by string id" "$("$bin" get app.omgdb users u1)" '{"_id":"u1","name":"ana","age":30}'
expect_eq "get by int id" "$("$bin" get app.omgdb users 7)" '{"_id":7,"name":"bo","age":20}'
expect_eq "get missing" "$("$bin" get app.omgdb users 8)" 'null'
expect_eq "find filter" "$("$bin" find app.omgdb users '{"age":{"$gte":21}}')" '{"_id":"u1","name":"ana","age":30}'
expect_eq "find sort limit" "$("$bin" find app.omgdb users '{"age":{"$exists":true}}' --sort '{"age":1}' --limit 1)" '{"_id":7,"name":"bo","age":20}'
expect_has "inspect" "$("$bin" inspect app.omgdb)" '{"name":"users","documents":3}'
dump=$("$bin" dump app.omgdb)
expect_has "dump header" "$dump" '{"collection":"users","count":3}'
expect_has "dump canonical" "$dump" '{"_id":{"$numberInt":"7"},"name":"bo","age":{"$numberInt":"20"}}'
tools=$("$bin" tools --scope read)
expect_has "tools at read" "$tools" "23 tools at scope read"
case "$tools" in *insert*) bad "tools at read lists insert" ;; *) ok ;; esac
expect_has "tools at dangerous" "$("$bin" tools --scope all)" "drop_collection"
"$bin" tools --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert all(t["inputSchema"]["type"]=="object" for t in d["tools"])' && ok || bad "tools --json"

# Usage errors exit 2 (not CLI11's 105/106), with the message on stderr.
"$bin" find >/dev/null 2>err.txt; st=$?
expect_eq "missing argument status" "$st" 2
expect_has "missing argument message" "$(cat err.txt)" "PATH is required"
"$bin" frobnicate >/dev/null 2>err.txt; st=$?
expect_eq "unknown command status" "$st" 2
"$bin" find app.omgdb users --limit -1 >/dev/null 2>err.txt; st=$?
expect_eq "bad option value status" "$st" 2
"$bin" --help >/dev/null 2>&1; st=$?
expect_eq "help status" "$st" 0

# `omgdb import` stops at the batch holding a bad line, says where to resume, and resumes.
printf '%s\n' '{"_id":1}' '{"_id":2}' '{"_id":3}' '{"_id":4,}' '{"_id":5}' >imp.jsonl
"$bin" import app.omgdb items imp.jsonl --batch-size 2 >out.txt 2>err.txt; st=$?
expect_eq "import failure status" "$st" 1
expect_has "import failure says what was committed" "$(cat err.txt)" "2 documents in 1 batch were imported before it (lines 1–2); they stay"
expect_has "import failure says where to resume" "$(cat err.txt)" "--from-line 3"
printf '%s\n' '{"_id":1}' '{"_id":2}' '{"_id":3}' '{"_id":4}' '{"_id":5}' >imp.jsonl
expect_eq "import resumed" "$("$bin" import app.omgdb items imp.jsonl --batch-size 2 --from-line 3)" '{"imported":3,"batches":2}'
expect_has "import complete" "$("$bin" inspect app.omgdb)" '{"name":"items","documents":5}'
"$bin" import app.omgdb items imp.jsonl --from-line 0 >/dev/null 2>&1; st=$?
expect_eq "import --from-line 0 status" "$st" 2

# While `omgdb mcp` holds the store, another process is told who holds it.
mkfifo hold.fifo
"$bin" mcp <hold.fifo >hold.out 2>hold.err &
holder=$!
exec 3>hold.fifo
echo '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inspect","arguments":{"path":"app.omgdb"}}}' >&3
for _ in $(seq 50); do [ -s hold.out ] && break; sleep 0.1; done
"$bin" inspect app.omgdb >/dev/null 2>err.txt; st=$?
expect_eq "held store status" "$st" 1
expect_has "held store names the holder" "$(cat err.txt)" "in use by process $holder"
exec 3>&-
wait "$holder"; st=$?
holder=
expect_eq "mcp exits 0 at end of input" "$st" 0

# stdout carries only protocol lines, even with debug logging; logs go to stderr.
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}' \
  'garbage' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find","arguments":{"path":"app.omgdb","collection":"users"}}}' \
  | OMGDB_LOG_LEVEL=debug "$bin" mcp >pure.out 2>pure.err
python3 - pure.out <<'PY' && ok || bad "stdout purity"
import json, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "output must end with a newline"
msgs = [json.loads(l) for l in lines[:-1]]
assert all(m.get("jsonrpc") == "2.0" for m in msgs)
assert any(m.get("id") == 2 and not m["result"]["isError"] for m in msgs)
PY
[ -s pure.err ] && ok || bad "debug logs reach stderr"

# Calls still running at end of input are answered before the process exits.
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count_documents","arguments":{"path":"app.omgdb","collection":"users"}}}' \
  | "$bin" mcp >eof.out 2>/dev/null
expect_has "answered before exit" "$(cat eof.out)" '{\"count\":3}'

# SIGTERM ends the server with status 0.
mkfifo term.fifo
"$bin" mcp <term.fifo >/dev/null 2>&1 &
pid=$!
exec 4>term.fifo
sleep 0.3
kill -TERM "$pid"
wait "$pid"; st=$?
exec 4>&-
expect_eq "SIGTERM exit status" "$st" 0

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
