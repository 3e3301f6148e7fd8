#!/usr/bin/env python3
"""Context packs: hit rate on natural-language questions (bench/context_questions.json).

Where bench/context_bench.py draws known-item queries from content words, these are questions
as a user types them ("How do I install semver?"), so their question words ("how", "do", "i")
are in the query — the case issue 30 item 10 is about. The corpus is the Markdown of npm's own
install (the JSON's `root`), imported with `omgdb import-markdown` into collection `md`.

Each question is asked twice over one `omgdb mcp` stdio session, with `budget` 1000:
  - bm25:  no search index (BM25 over the chunks of every document);
  - index: after `define_search_index {collection: md, fields: [text]}` (the index's best 50
           documents, then BM25 over their chunks).
A hit (hit@1) is a first citation in the question's `doc` (one of them, for a list) whose bytes overlap, when `sections`
are given, a section titled one of them or nested in one (a title equal to it, or containing it
when longer than 3 characters; a citation of adjacent chunks spans several sections); hit@pack
counts the pack
holding such a citation anywhere.

Usage: bench/context_questions.py build/release/omgdb [--questions FILE] [--budget 1000] [--misses]
Prints one JSON object; --misses also lists the questions missed at hit@1 (to stderr).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


class mcp:
    def __init__(self, omgdb):
        self.p = subprocess.Popen([omgdb, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        self.n = 0
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "context_questions", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def rpc(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def call(self, name, args):
        r = self.rpc("tools/call", {"name": name, "arguments": args})
        if "error" in r or r["result"].get("isError"):
            raise SystemExit(f"context_questions: {name} failed: {r}")
        return [c["text"] for c in r["result"]["content"]]

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def docs_of(q):
    return q["doc"] if isinstance(q["doc"], list) else [q["doc"]]


def titled_as(section, t):
    # The section or one it is nested in (a sub-section answers too).
    return any(h == t or (len(t) > 3 and t in h) for h in section["path"])


def matches(cite, q, sections):
    if cite["_id"] not in docs_of(q):
        return False
    if not q.get("sections"):
        return True
    for x in sections[cite["_id"]]:
        titled = any(titled_as(x, t) for t in q["sections"])
        if titled and cite["byteStart"] < x["bodyEnd"] and x["headingStart"] < cite["byteEnd"]:
            return True
    return False


def ask_all(s, store, questions, sections, budget, misses, label):
    hit1 = hitp = 0
    for q in questions:
        _, meta = s.call("context_pack", {"path": store, "collection": "md", "field": "text",
                                          "query": q["q"], "budget": budget})
        cites = json.loads(meta)["citations"]
        if cites and matches(cites[0], q, sections):
            hit1 += 1
        elif misses:
            first = f'{cites[0]["_id"]} § {" › ".join(cites[0]["headingPath"])}' if cites else "(nothing)"
            print(f"[{label}] miss: {q['q']!r} -> {first}", file=sys.stderr)
        if any(matches(c, q, sections) for c in cites):
            hitp += 1
    n = len(questions)
    return {"hit_at_1": round(hit1 / n, 3), "hits_at_1": hit1, "hit_in_pack": round(hitp / n, 3),
            "hits_in_pack": hitp, "questions": n}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("omgdb")
    ap.add_argument("--questions", default=os.path.join(HERE, "context_questions.json"))
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--misses", action="store_true")
    a = ap.parse_args()
    omgdb = os.path.abspath(a.omgdb)
    spec = json.load(open(a.questions))
    questions = spec["questions"]
    with tempfile.TemporaryDirectory(prefix="omgdb-context-questions-") as work:
        store = os.path.join(work, "corpus")
        subprocess.run([omgdb, "create", store], check=True, stdout=subprocess.DEVNULL)
        summary = subprocess.run([omgdb, "import-markdown", "--quiet", store, "md", spec["root"]], check=True,
                                 capture_output=True, text=True).stdout
        s = mcp(omgdb)
        ids = {json.loads(line)["_id"] for line in
               s.call("find", {"path": store, "collection": "md", "filter": {}, "project": {"_id": 1},
                               "limit": 100000})[0].splitlines() if line.strip()}
        absent = [d for q in questions for d in docs_of(q) if d not in ids]
        if absent:
            raise SystemExit(f"context_questions: not in the corpus: {absent}")
        sections = {d: json.loads(s.call("get", {"path": store, "collection": "md", "id": d})[0])["_sections"]
                    for d in {d for q in questions for d in docs_of(q)}}
        for q in questions:
            for d in docs_of(q):
                for t in q.get("sections", []):
                    if not any(titled_as(x, t) for x in sections[d]):
                        raise SystemExit(f"context_questions: no section {t!r} in {d}")
        out = {"corpus": summary.strip(), "documents": len(ids), "budget": a.budget}
        out["bm25"] = ask_all(s, store, questions, sections, a.budget, a.misses, "bm25")
        s.call("define_search_index", {"path": store, "definition": {"collection": "md", "name": "text",
                                                                      "fields": ["text"]}})
        out["index"] = ask_all(s, store, questions, sections, a.budget, a.misses, "index")
        s.close()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
