#!/usr/bin/env python3
"""Crash test for index builds (issue 5): SIGKILL `omgdb mcp` while create_named_index builds
an index over existing documents; after each kill a fresh server finds the store consistent:
  - verify says "ok": true (verify checks every index's entries against the documents and
    reports idx entries of an index that has no definition, i.e. a half-built index);
  - every index whose success reply was read is listed; an index that is not listed left
    nothing behind (verify's orphan check), one that is listed answers queries like a full scan.

Usage: index_crash_test.py OMGDB_BINARY [--seed S] [--rounds N] [--documents N]
The store lives in a temporary directory that is removed at the end.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crash_test import Server, parse  # noqa: E402

def call_ok(srv, tool, args):
    """A call that must succeed (Server.ok cannot pass an argument called `name`)."""
    msg = srv.wait_reply(srv.send(tool, args), timeout=120)
    if msg is None:
        raise AssertionError(f"server exited during {tool}")
    err, texts = parse(msg)
    if err:
        raise AssertionError(f"{tool} failed: {texts}")
    return texts


FIELDS = [["v"], ["w"], ["v", "t"], ["t"], ["w", "v"]]


def main():
    ap = argparse.ArgumentParser(description="omgdb index-build crash test")
    ap.add_argument("binary")
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--documents", type=int, default=40000)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    tmp = tempfile.mkdtemp(prefix="omgdb-index-crash-")
    store = os.path.join(tmp, "app.omgdb")
    try:
        subprocess.run([a.binary, "create", store], check=True, capture_output=True, timeout=30)
        data = os.path.join(tmp, "data.jsonl")
        with open(data, "w") as f:
            for i in range(a.documents):
                f.write(json.dumps({"_id": i, "v": i % 1000, "w": f"s{i % 5000}", "t": [i % 7, i % 11]}) + "\n")
        srv = Server(a.binary, ["--scope", "all"], tmp)
        srv.ok("import_jsonl", path=store, collection="docs", file=data, batchSize=5000)
        # How long one build takes, to spread the kills over it.
        t0 = time.monotonic()
        call_ok(srv, "create_named_index", {"path": store, "collection": "docs", "name": "probe", "fields": ["w", "v"]})
        build = time.monotonic() - t0
        call_ok(srv, "drop_index", {"path": store, "collection": "docs", "name": "probe"})
        srv.stop()
        acknowledged = set()
        killed_mid = 0
        for r in range(a.rounds):
            srv = Server(a.binary, ["--scope", "all"], tmp)
            name = f"ix{r}"
            fields = FIELDS[r % len(FIELDS)]
            rid = srv.send("create_named_index", {"path": store, "collection": "docs", "name": name,
                                                  "fields": fields, "unique": False})
            time.sleep(rng.uniform(0.0, build * 1.5))
            if not srv.replies.empty():
                msg = srv.wait_reply(rid, timeout=1)
                if msg is not None and not msg["result"].get("isError"):
                    acknowledged.add(name)
            else:
                killed_mid += 1
            srv.kill()
            check = Server(a.binary, ["--scope", "all"], tmp)
            texts = check.ok("verify", path=store)
            report = json.loads(texts[0])
            if not report["ok"]:
                raise AssertionError(f"round {r}: verify failed after the kill: {report['mismatches'][:5]}")
            listed = {i["name"] for i in json.loads(check.ok("list_indexes", path=store, collection="docs")[0])["indexes"]}
            missing = acknowledged - listed
            if missing:
                raise AssertionError(f"round {r}: acknowledged indexes lost: {sorted(missing)}")
            if name in listed:
                query = {"v": 7, "w": "s7", "t": 0}
                expected = sum(1 for i in range(a.documents)
                               if i % 1000 == 7 and f"s{i % 5000}" == "s7" and 0 in (i % 7, i % 11))
                got = json.loads(check.ok("count_documents", path=store, collection="docs", filter=query)[0])
                exp = json.loads(check.ok("explain", path=store, collection="docs", filter=query)[0])
                if got["count"] != expected:
                    raise AssertionError(f"round {r}: count through the indexes gave {got}, expected {expected}")
                if exp["plan"] != "index scan":
                    raise AssertionError(f"round {r}: explain did not use an index: {exp}")
            check.stop()
            print(f"round {r}: {'present' if name in listed else 'absent'} after the kill", file=sys.stderr)
        print(f"index crash test: {a.rounds} rounds, {killed_mid} killed mid-build, build {build:.2f}s: ok")
        return 0
    except AssertionError as e:
        print(f"index crash test FAILED: {e}")
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
