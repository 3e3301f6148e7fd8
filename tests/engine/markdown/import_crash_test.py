#!/usr/bin/env python3
"""SIGKILL during `omgdb import-markdown` leaves whole batches and a clean `verify`.

6,000 small Markdown files are imported with --batch-size 10; the import is killed after a
seeded random delay, several times over fresh stores. After each kill: the store opens, the
documents present are exactly the first k*10 files in `_id` order (whole batches, nothing
half-written), every one holds its file's full text, and `verify` (over MCP stdio) is clean.
Then the same command, run again, finishes the import: the files already in are `unchanged`.
Usage: import_crash_test.py OMGDB
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

OMGDB = sys.argv[1]
FILES, BATCH = 6000, 10


def mcp(store, calls):
    p = subprocess.Popen([OMGDB, "mcp", "--max-result-bytes", "67108864"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    def rpc(i, method, params):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
        p.stdin.flush()
        return json.loads(p.stdout.readline())
    rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    out = []
    for n, (name, args) in enumerate(calls):
        r = rpc(10 + n, "tools/call", {"name": name, "arguments": dict(args, path=store)})
        assert not r["result"].get("isError"), r
        out.append(r["result"]["content"][0]["text"])
    p.stdin.close()
    p.wait(timeout=30)
    return out


def main():
    rng = random.Random(20)
    work = tempfile.mkdtemp(prefix="omgdb-md-crash-")
    try:
        src = os.path.join(work, "src")
        texts = {}
        for i in range(FILES):
            rel = f"d{i % 7}/note-{i:05d}.md"
            text = f"---\nn: {i}\n---\n# Note {i}\n" + ("Body text of the note. " * rng.randint(5, 60)) + "\n## Sub\nmore\n"
            os.makedirs(os.path.join(src, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(src, rel), "w") as f:
                f.write(text)
            texts[rel] = text
        order = sorted(texts)
        partial = 0
        for round_ in range(4):
            store = os.path.join(work, f"store{round_}")
            subprocess.run([OMGDB, "create", store], check=True, stdout=subprocess.DEVNULL)
            p = subprocess.Popen([OMGDB, "import-markdown", "--quiet", "--batch-size", str(BATCH), store, "c", src],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.05, 0.8))
            p.send_signal(signal.SIGKILL)
            p.wait()
            found, count, verify = mcp(store, [("find", {"collection": "c", "filter": {}, "project": {"_id": 1}}),
                                               ("count_documents", {"collection": "c"}), ("verify", {})])
            ids = [json.loads(line)["_id"] for line in found.splitlines() if line.strip()]
            assert len(ids) == json.loads(count)["count"], "find returned a cut page"
            assert len(ids) % BATCH == 0 or len(ids) == FILES, f"round {round_}: {len(ids)} documents, not whole batches"
            assert ids == order[:len(ids)], f"round {round_}: the documents are not the first {len(ids)} files"
            for rel in ids[-BATCH:]:  # the last batch in, whole
                doc = json.loads(mcp(store, [("get", {"collection": "c", "id": rel})])[0])
                assert doc["text"] == texts[rel], f"{rel}: text differs"
            report = json.loads(verify)
            assert report["ok"], f"round {round_}: verify: {report}"
            if 0 < len(ids) < FILES:
                partial += 1
            done = subprocess.run([OMGDB, "import-markdown", "--quiet", store, "c", src], check=True,
                                  capture_output=True, text=True).stdout
            summary = json.loads(done)
            assert summary["unchanged"] == len(ids) and summary["inserted"] == FILES - len(ids), summary
            print(f"round {round_}: killed with {len(ids)} of {FILES} documents ({len(ids) // BATCH} batches); "
                  f"verify ok; the re-run inserted {summary['inserted']}, left {summary['unchanged']} unchanged")
        assert partial >= 1, "no kill landed inside the import: the delays need tuning"
        print("import_crash_test: ok")
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
