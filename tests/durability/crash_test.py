#!/usr/bin/env python3
"""Crash test (issue 4): SIGKILL `omgdb mcp` at random moments during bulk_write and
import_jsonl; after each kill the store opens, `verify` is clean, and every group (one
bulk_write program, or one import_jsonl batch) is wholly present or wholly absent.

Each round starts `omgdb mcp --scope all` on the same store and streams writes (a few in flight):
  - bulk_write programs: insert_many of K documents {"_id": g*10000+i, "g": g, "i": i} into
    `docs`, and in some programs also an $inc of the counter document `counter`/"c" by one;
  - import_jsonl of a file of L lines with batchSize B, each batch its own group g (the same
    tagging), batches in file order.
After a seeded random delay the server gets SIGKILL. A fresh `omgdb mcp` then checks:
  - verify says "ok": true;
  - every group ever sent has count_documents {g} equal to 0 or its size;
  - every group whose success reply was read is present (an import's reply covers all its
    batches); the batches of one import are a prefix (batch k present => batch k-1 present);
  - count_documents of `docs` is the sum of the present groups (no stray documents);
  - the counter equals the number of present bulk groups that incremented it.

Usage: crash_test.py OMGDB_BINARY [--seed S] [--rounds N] [--max-seconds T] [--fresh-every N]
       [--max-delay SECONDS]
Soak elsewhere: crash_test.py BINARY --seed S --rounds 2000 --max-seconds 0 --fresh-every 50
Every wait is bounded; the store lives in a temporary directory that is removed at the end.
"""
import argparse
import json
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

DEFAULT_SEED = 20261130
DEFAULT_ROUNDS = 50
DEFAULT_MAX_SECONDS = 45.0
CALL_TIMEOUT = 30.0
IN_FLIGHT = 4          # write requests outstanding at once
WRITES_PER_ROUND = 30  # upper bound on requests sent in one round
GROUP_STRIDE = 10000


class Server:
    """`omgdb mcp` over stdio with pipelined tools/call requests."""

    def __init__(self, binary, args, cwd):
        self.proc = subprocess.Popen([binary, "mcp", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
        self.replies = queue.Queue()
        self.next_id = 1
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                self.replies.put(("garbage", line))
                continue
            if "id" in msg:
                self.replies.put(("reply", msg))
        self.replies.put(("eof", None))

    def _read_err(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode(errors="replace"))

    def send(self, name, arguments):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}}
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        return rid

    def wait_reply(self, rid=None, timeout=CALL_TIMEOUT):
        """The next reply (or the one with id rid); None on EOF."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"no reply within {timeout}s")
            kind, msg = self.replies.get(timeout=left)
            if kind == "eof":
                return None
            if kind == "garbage":
                raise AssertionError(f"stdout line is not JSON: {msg[:200]!r}")
            if rid is None or msg.get("id") == rid:
                return msg

    def call(self, name, **arguments):
        rid = self.send(name, arguments)
        msg = self.wait_reply(rid)
        if msg is None:
            raise AssertionError(f"server exited before replying to {name}; stderr: "
                                 + "".join(self.stderr)[-500:])
        return parse(msg)

    def ok(self, name, **arguments):
        err, texts = self.call(name, **arguments)
        if err:
            raise AssertionError(f"{name} {json.dumps(arguments)[:300]} failed: {texts}")
        return texts

    def many(self, calls):
        """Pipelined calls [(name, args)]; results in order."""
        ids = [self.send(n, a) for n, a in calls]
        got = {}
        while len(got) < len(ids):
            msg = self.wait_reply()
            if msg is None:
                raise AssertionError("server exited during checks; stderr: "
                                     + "".join(self.stderr)[-500:])
            got[msg["id"]] = msg
        out = []
        for (n, a), i in zip(calls, ids):
            err, texts = parse(got[i])
            if err:
                raise AssertionError(f"{n} {json.dumps(a)[:300]} failed: {texts}")
            out.append(texts)
        return out

    def stop(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("server did not exit within 30s after stdin closed")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)


def parse(msg):
    if "error" in msg:
        return True, [f"JSON-RPC error {msg['error']}"]
    res = msg["result"]
    return res.get("isError", False), [c.get("text", "") for c in res["content"]]


class State:
    def __init__(self):
        self.next_group = 1
        self.groups = {}     # g -> {"size", "kind", "inc", "import", "batch"}
        self.imports = {}    # import id -> [groups in batch order]
        self.acked = set()   # groups whose success reply was read
        self.cut_imports = set()  # imports killed between batches (some present, some not)

    def new_group(self, size, kind, inc=False, imp=None, batch=None):
        g = self.next_group
        self.next_group += 1
        self.groups[g] = {"size": size, "kind": kind, "inc": inc, "import": imp, "batch": batch}
        return g


def make_request(rng, st, store, tmp, round_no, seq):
    """One write request: (tool, arguments, groups it covers)."""
    if rng.random() < 0.7:
        k = rng.randint(1, 40)
        inc = rng.random() < 0.6
        g = st.new_group(k, "bulk", inc=inc)
        ops = [{"op": "insert_many", "collection": "docs",
                "documents": [{"_id": g * GROUP_STRIDE + i, "g": g, "i": i,
                               "pad": "x" * rng.randint(0, 200)} for i in range(k)]}]
        if inc:
            ops.insert(rng.randint(0, 1), {"op": "update_one", "collection": "counter",
                                           "filter": {"_id": "c"}, "update": {"$inc": {"n": 1}},
                                           "upsertDocument": {"_id": "c"}})
        return "bulk_write", {"path": store, "version": 1, "operations": ops}, [g]
    lines_total = rng.randint(20, 400)
    b = rng.randint(10, 100)
    imp = f"{round_no}-{seq}"
    groups, lines = [], []
    for start in range(0, lines_total, b):
        size = min(b, lines_total - start)
        g = st.new_group(size, "import", imp=imp, batch=len(groups))
        groups.append(g)
        lines += [json.dumps({"_id": g * GROUP_STRIDE + i, "g": g, "i": i}) for i in range(size)]
    st.imports[imp] = groups
    fname = os.path.join(tmp, f"import-{imp}.jsonl")
    with open(fname, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return "import_jsonl", {"path": store, "collection": "docs", "file": fname,
                            "batchSize": b}, groups


def write_round(binary, rng, st, store, tmp, round_no, delay):
    """Stream writes, SIGKILL after `delay` seconds; record acknowledged groups."""
    srv = Server(binary, ["--scope", "all"], tmp)
    pending = {}  # rid -> (tool, groups)
    sent = 0
    start = time.monotonic()
    kill_at = start + delay
    problems = []
    eof = False

    def take(msg):
        tool, groups = pending.pop(msg["id"])
        err, texts = parse(msg)
        if err:
            problems.append(f"{tool} on groups {groups[0]}..{groups[-1]} failed: {texts}")
        else:
            st.acked.update(groups)

    try:
        while time.monotonic() < kill_at and not eof:
            while len(pending) < IN_FLIGHT and sent < WRITES_PER_ROUND:
                tool, args, groups = make_request(rng, st, store, tmp, round_no, sent)
                try:
                    rid = srv.send(tool, args)
                except (BrokenPipeError, OSError):
                    eof = True
                    break
                pending[rid] = (tool, groups)
                sent += 1
            if not pending:
                break
            try:
                msg = srv.wait_reply(timeout=max(0.001, kill_at - time.monotonic()))
            except (queue.Empty, RuntimeError):
                continue
            if msg is None:
                eof = True
                break
            take(msg)
        srv.kill()
        # Lines the server wrote before it died are acknowledgements too.
        while True:
            try:
                msg = srv.wait_reply(timeout=5)
            except (queue.Empty, RuntimeError):
                break
            if msg is None:
                break
            take(msg)
    finally:
        if srv.proc.poll() is None:
            srv.proc.kill()
            srv.proc.wait()
    if eof and srv.proc.returncode != -signal.SIGKILL:
        problems.append(f"server exited on its own with {srv.proc.returncode}; stderr: "
                        + "".join(srv.stderr)[-500:])
    return sent, problems


def check(binary, st, store, tmp):
    """Fresh server: verify, then every group all-or-nothing. Returns a list of problems."""
    srv = Server(binary, ["--max-result-bytes", "1073741824"], tmp)
    problems = []
    try:
        v = json.loads(srv.ok("verify", path=store)[0])
        if v.get("ok") is not True:
            problems.append(f"verify not ok: {json.dumps(v)[:2000]}")
        gs = sorted(st.groups)
        # One pass over `docs` (count_documents per group would scan the collection per group).
        counts, ids = {}, set()
        texts = srv.ok("cursor_open", path=store, collection="docs", batchSize=10000,
                       project={"g": 1, "i": 1})
        for _ in range(10000):  # bounded
            for line in texts[0].split("\n"):
                if line.strip():
                    d = json.loads(line)
                    if d["_id"] in ids:
                        problems.append(f"cursor returned _id {d['_id']} twice")
                    ids.add(d["_id"])
                    if d["_id"] != d["g"] * GROUP_STRIDE + d["i"]:
                        problems.append(f"document {line} is not tagged as written")
                    counts[d["g"]] = counts.get(d["g"], 0) + 1
            meta = json.loads(texts[1])
            if meta["exhausted"]:
                break
            texts = srv.ok("cursor_next", path=store, token=meta["token"])
        # Spot-check the cursor against count_documents for a few groups.
        sample = gs[-5:]
        res = srv.many([("count_documents", {"path": store, "collection": "docs",
                                             "filter": {"g": g}}) for g in sample])
        for g, t in zip(sample, res):
            if json.loads(t[0])["count"] != counts.get(g, 0):
                problems.append(f"group {g}: count_documents {t[0]} but the cursor saw "
                                f"{counts.get(g, 0)}")
        for g in set(counts) - set(st.groups):
            problems.append(f"documents of unknown group {g}: {counts[g]}")
        counts = {g: counts.get(g, 0) for g in gs}
        present = set()
        for g in gs:
            info, n = st.groups[g], counts[g]
            if n == info["size"]:
                present.add(g)
            elif n != 0:
                problems.append(f"group {g} ({info['kind']}"
                                + (f" import {info['import']} batch {info['batch']}"
                                   if info["import"] else "")
                                + f") is partial: {n} of {info['size']} documents")
            if g in st.acked and n != info["size"]:
                problems.append(f"group {g} ({info['kind']}) was acknowledged but has "
                                f"{n} of {info['size']} documents")
        for imp, groups in st.imports.items():
            flags = [g in present for g in groups]
            if any(flags[k] and not flags[k - 1] for k in range(1, len(flags))):
                problems.append(f"import {imp}: present batches are not a prefix: {flags}")
            if any(flags) and not all(flags):
                st.cut_imports.add(imp)
        total = json.loads(srv.ok("count_documents", path=store, collection="docs")[0])["count"]
        want = sum(st.groups[g]["size"] for g in present)
        if total != want:
            problems.append(f"docs holds {total} documents, the present groups {want}")
        got = srv.ok("get", path=store, collection="counter", id="c")[0]
        counter = 0 if got == "null" else json.loads(got).get("n", 0)
        want_c = sum(1 for g in present if st.groups[g]["inc"])
        if counter != want_c:
            problems.append(f"counter is {counter}, present incrementing programs {want_c}")
        srv.stop()
    finally:
        if srv.proc.poll() is None:
            srv.proc.kill()
            srv.proc.wait()
    return problems, len(present)


def main():
    ap = argparse.ArgumentParser(description="omgdb SIGKILL crash test")
    ap.add_argument("binary")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    ap.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS,
                    help="stop starting rounds after this long (0: no limit)")
    ap.add_argument("--fresh-every", type=int, default=0,
                    help="start over with a new store every N rounds (0: one store), so a long "
                         "soak does not slow down as the store grows")
    ap.add_argument("--max-delay", type=float, default=0.5,
                    help="largest delay before the SIGKILL, seconds")
    opt = ap.parse_args()
    binary = os.path.abspath(opt.binary)
    print(f"crash: seed {opt.seed}, up to {opt.rounds} rounds, up to {opt.max_seconds}s "
          f"(rerun: crash_test.py BINARY --seed {opt.seed} --rounds {opt.rounds} "
          f"--max-delay {opt.max_delay} --fresh-every {opt.fresh_every})", flush=True)
    t0 = time.monotonic()
    st = State()
    done = 0
    failed = False
    totals = [0, 0, 0]  # groups, acknowledged, imports cut, over the stores before this one
    with tempfile.TemporaryDirectory(prefix="omgdb-crash-") as tmp:
        store = None
        for rnd in range(1, opt.rounds + 1):
            if opt.max_seconds and time.monotonic() - t0 > opt.max_seconds:
                print(f"crash: time limit {opt.max_seconds}s reached before round {rnd}")
                break
            if store is None or (opt.fresh_every and (rnd - 1) % opt.fresh_every == 0):
                totals = [totals[0] + len(st.groups), totals[1] + len(st.acked),
                          totals[2] + len(st.cut_imports)]
                st = State()
                if store is not None:
                    shutil.rmtree(store, ignore_errors=True)
                store = os.path.join(tmp, f"crash-{rnd}.omgdb")
                r = subprocess.run([binary, "create", store], capture_output=True, text=True,
                                   timeout=60)
                if r.returncode != 0:
                    print(f"crash: FAILED: omgdb create: {r.stderr.strip()}")
                    return 1
            # Each round has its own generator, so the kill delay and the payloads of round r
            # depend only on (seed, r), not on how many writes earlier rounds got through.
            rrng = random.Random(opt.seed * 1000003 + rnd)
            # Mostly mid-stream kills; sometimes right after start (during open/recovery).
            delay = (rrng.uniform(0, 0.02) if rrng.random() < 0.1
                     else rrng.uniform(0, opt.max_delay))
            try:
                sent, problems = write_round(binary, rrng, st, store, tmp, rnd, delay)
                for name in os.listdir(tmp):  # the server is dead: its import files can go
                    if name.startswith("import-"):
                        os.remove(os.path.join(tmp, name))
                more, n_present = check(binary, st, store, tmp)
                problems += more
            except Exception as e:
                sent, n_present, problems = 0, 0, [f"{type(e).__name__}: {e}"]
            done += 1
            if problems:
                failed = True
                print(f"crash round {rnd} (seed {opt.seed}, kill after {delay:.3f}s): FAILED")
                for p in problems[:30]:
                    print(f"  {p}")
                break  # the store is now suspect; later rounds would only repeat it
            if rnd % 10 == 0 or rnd == opt.rounds:
                print(f"crash round {rnd}: ok ({sent} writes sent, {len(st.acked)} groups acked,"
                      f" {n_present}/{len(st.groups)} present, {time.monotonic() - t0:.1f}s)",
                      flush=True)
    print(f"crash: {done} rounds, {totals[0] + len(st.groups)} groups, "
          f"{totals[1] + len(st.acked)} acknowledged, "
          f"{totals[2] + len(st.cut_imports)} imports cut between batches, "
          f"{time.monotonic() - t0:.1f}s: {'FAILED' if failed else 'ok'}")
    return 1 if failed or done == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
