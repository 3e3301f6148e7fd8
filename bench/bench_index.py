#!/usr/bin/env python3
"""Index benchmark (issue 5): on N documents (default 1,000,000) loaded by import_jsonl,
  - a point lookup (`find {k: X}`) and a 1% range count (`count_documents {r: {$gte: a, $lt: b}}`)
    through an index against the same query as a full scan (ratios), and against SQLite
    (python3's sqlite3 module, in process) with an expression index on json_extract over the
    same JSON lines loaded into one TEXT column;
  - write amplification: insert_many throughput (batches of 1000) into a fresh collection
    with 0, 1 and 3 indexes.
omgdb figures are round trips over the stdio MCP pipe; `ping_ms` (a tools/call of a trivial
read) is reported so the pipe's share can be seen. Then, like for like, the in-process program
`index_bench` (bench/index_bench.cpp, a CMake target outside `all`: bench/run.sh builds it next
to OMGDB) loads the same JSON lines into an omgdb store and into SQLite from C++ and times the
engine calls behind `find` / `count_documents` against prepared SQLite statements, interleaved,
in one process (`in_process` in the output; skipped with a note when the binary is missing).
Not part of `make test`.

Usage: bench/bench_index.py OMGDB [--documents N] [--queries Q] [--inproc-queries Q]
                            [--insert-documents M] [--keep]
Writes bench/out/index.json and prints a short report.
"""
import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import BenchError, Server, log  # noqa: E402

OUT = os.path.join(HERE, "out")


def make_doc(i, rnd):
    return {"_id": i, "k": i * 7 + 3, "r": rnd.randrange(1_000_000), "name": f"user {i:07d}",
            "city": ["Lisbon", "Porto", "Braga", "Faro"][i % 4], "tags": [f"t{i % 7}", f"t{i % 13}"]}


def timed(fn, runs):
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000.0)
    return {"median_ms": statistics.median(out), "min_ms": min(out), "runs": runs}


def omgdb_queries(srv, store, n, queries, rnd, label):
    points = [rnd.randrange(n) * 7 + 3 for _ in range(queries)]
    ranges = [rnd.randrange(1_000_000 - 10_000) for _ in range(queries)]
    it_p, it_r = iter(points), iter(ranges)

    def point():
        text = srv.call_tool("find", {"path": store, "collection": "docs", "filter": {"k": next(it_p)}})
        if text.count("\n") != 1:
            raise BenchError(f"{label}: point lookup returned {text.count(chr(10))} documents")

    def range_count():
        a = next(it_r)
        json.loads(srv.call_tool("count_documents", {"path": store, "collection": "docs",
                                                     "filter": {"r": {"$gte": a, "$lt": a + 10_000}}}))

    return {"point": timed(point, queries), "range_1pct": timed(range_count, queries)}


def sqlite_bench(jsonl, n, queries, rnd, work):
    db = os.path.join(work, "bench.sqlite")
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    con.execute("CREATE TABLE docs (body TEXT NOT NULL)")
    t0 = time.perf_counter()
    with open(jsonl) as f:
        batch = []
        for line in f:
            batch.append((line,))
            if len(batch) == 1000:
                con.executemany("INSERT INTO docs (body) VALUES (json(?))", batch)
                con.commit()  # one transaction per 1000 lines, as import_jsonl commits
                batch = []
        if batch:
            con.executemany("INSERT INTO docs (body) VALUES (json(?))", batch)
            con.commit()
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    con.execute("CREATE INDEX docs_k ON docs (json_extract(body, '$.k'))")
    con.execute("CREATE INDEX docs_r ON docs (json_extract(body, '$.r'))")
    con.commit()
    index_s = time.perf_counter() - t0
    points = [rnd.randrange(n) * 7 + 3 for _ in range(queries)]
    ranges = [rnd.randrange(1_000_000 - 10_000) for _ in range(queries)]
    it_p, it_r = iter(points), iter(ranges)

    def point():
        rows = con.execute("SELECT body FROM docs WHERE json_extract(body, '$.k') = ?", (next(it_p),)).fetchall()
        if len(rows) != 1:
            raise BenchError("sqlite point lookup did not find one row")

    def range_count():
        a = next(it_r)
        con.execute("SELECT count(*) FROM docs WHERE json_extract(body, '$.r') >= ? AND json_extract(body, '$.r') < ?",
                    (a, a + 10_000)).fetchone()

    res = {"load_s": load_s, "index_build_s": index_s, "point": timed(point, queries),
           "range_1pct": timed(range_count, queries)}
    con.close()
    return res


def insert_throughput(omgdb, work, docs, indexes):
    store = os.path.join(work, f"ins{indexes}.omgdb")
    subprocess.run([omgdb, "create", store], check=True, stdout=subprocess.DEVNULL)
    srv = Server(omgdb, os.path.join(work, f"ins{indexes}.stderr.log"))
    try:
        srv.initialize()
        for field in ["k", "r", "name"][:indexes]:
            srv.call_tool("create_index", {"path": store, "collection": "docs", "field": field})
        rnd = random.Random(indexes)
        t0 = time.perf_counter()
        for start in range(0, docs, 1000):
            batch = [make_doc(i, rnd) for i in range(start, min(docs, start + 1000))]
            srv.call_tool("insert_many", {"path": store, "collection": "docs", "documents": batch})
        secs = time.perf_counter() - t0
    finally:
        srv.close()
    return {"indexes": indexes, "documents": docs, "seconds": secs, "docs_per_s": docs / secs}


def in_process(omgdb, jsonl, work, queries):
    """index_bench (built next to the omgdb binary) on the same JSON lines: engine calls vs
    prepared SQLite statements in one process."""
    exe = os.path.join(os.path.dirname(os.path.abspath(omgdb)), "index_bench")
    if not os.path.exists(exe):
        return {"skipped": f"{exe} not built (cmake --build <dir> --target index_bench)"}
    log(f"index: in process ({queries} interleaved queries each)")
    out = subprocess.run([exe, jsonl, os.path.join(work, "inproc"), "--queries", str(queries)],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description="omgdb index benchmark")
    ap.add_argument("omgdb")
    ap.add_argument("--documents", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--scan-queries", type=int, default=3)
    ap.add_argument("--inproc-queries", type=int, default=1000)
    ap.add_argument("--insert-documents", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="work-index-", dir=OUT)
    res = {"documents": a.documents}
    try:
        jsonl = os.path.join(work, "docs.jsonl")
        rnd = random.Random(a.seed)
        with open(jsonl, "w") as f:
            for i in range(a.documents):
                f.write(json.dumps(make_doc(i, rnd), separators=(",", ":")) + "\n")
        store = os.path.join(work, "index.omgdb")
        subprocess.run([a.omgdb, "create", store], check=True, stdout=subprocess.DEVNULL)
        srv = Server(a.omgdb, os.path.join(work, "omgdb.stderr.log"))
        try:
            srv.initialize()
            log(f"index: importing {a.documents} documents")
            t0 = time.perf_counter()
            srv.call_tool("import_jsonl", {"path": store, "collection": "docs", "file": jsonl, "batchSize": 1000})
            res["omgdb_load_s"] = time.perf_counter() - t0
            res["ping_ms"] = timed(lambda: srv.call_tool("list_collections", {"path": store}), 20)["median_ms"]
            log("index: full scans")
            res["omgdb_full_scan"] = omgdb_queries(srv, store, a.documents, a.scan_queries, random.Random(1), "scan")
            log("index: building indexes on k and r")
            t0 = time.perf_counter()
            srv.call_tool("create_index", {"path": store, "collection": "docs", "field": "k"})
            srv.call_tool("create_index", {"path": store, "collection": "docs", "field": "r"})
            res["omgdb_index_build_s"] = time.perf_counter() - t0
            # A fresh server on the built store, as after a restart: the build's entries are
            # flushed from memory (queries right after a build iterate the memtable, several
            # times slower, until RocksDB's background flush ends; that phase is not measured).
            srv.close()
            srv = Server(a.omgdb, os.path.join(work, "omgdb2.stderr.log"))
            srv.initialize()
            res["omgdb_indexed"] = omgdb_queries(srv, store, a.documents, a.queries, random.Random(2), "index")
        finally:
            srv.close()
        log("index: sqlite")
        res["sqlite"] = sqlite_bench(jsonl, a.documents, a.queries, random.Random(2), work)
        res["ratios"] = {
            q: {"full_scan_over_index": res["omgdb_full_scan"][q]["median_ms"] / res["omgdb_indexed"][q]["median_ms"],
                "omgdb_over_sqlite": res["omgdb_indexed"][q]["median_ms"] / res["sqlite"][q]["median_ms"]}
            for q in ("point", "range_1pct")}
        res["in_process"] = in_process(a.omgdb, jsonl, work, a.inproc_queries)
        log("index: insert_many with 0, 1, 3 indexes")
        res["insert_many"] = [insert_throughput(a.omgdb, work, a.insert_documents, k) for k in (0, 1, 3)]
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump(res, f, indent=2)
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as e:
        print(f"bench_index: {e}", file=sys.stderr)
        sys.exit(1)
