#!/usr/bin/env python3
"""Restart test (issue 4): a cursor and a planned change survive a restart of `omgdb mcp`.

Open a cursor (batchSize smaller than the collection) and plan an update; stop the server
(cleanly: close stdin and wait; or SIGKILL); start a new server; the cursor continues exactly
where it stopped (no document twice, none skipped), the plan applies, verify is clean, and the
rollback of the change restores the documents (verify clean again).

Usage: restart_test.py OMGDB_BINARY        Python 3 stdlib only. Exit status 0 = pass.
"""
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time

N_DOCS = 53
BATCH = 7
CALL_TIMEOUT = 30.0


class Server:
    """`omgdb mcp` over stdio: newline-delimited JSON-RPC."""

    def __init__(self, binary, args=(), cwd=None):
        self.proc = subprocess.Popen([binary, "mcp", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
        self.lines = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr = []
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_err(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode(errors="replace"))

    def call(self, name, **arguments):
        """A tools/call; returns (is_error, [content texts])."""
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}}
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        deadline = time.monotonic() + CALL_TIMEOUT
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"no reply to {name} within {CALL_TIMEOUT}s")
            line = self.lines.get(timeout=left)
            if line is None:
                raise RuntimeError(f"server closed stdout before replying to {name}; stderr: "
                                   + "".join(self.stderr)[-500:])
            reply = json.loads(line)
            if reply.get("id") != rid:
                continue  # notifications
            if "error" in reply:
                raise RuntimeError(f"{name}: JSON-RPC error {reply['error']}")
            res = reply["result"]
            return res.get("isError", False), [c.get("text", "") for c in res["content"]]

    def ok(self, name, **arguments):
        err, texts = self.call(name, **arguments)
        if err:
            raise AssertionError(f"{name} failed: {texts}")
        return texts

    def stop_clean(self):
        self.proc.stdin.close()
        try:
            rc = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("server did not exit within 30s after stdin closed")
        if rc != 0:
            raise AssertionError(f"server exited {rc} after stdin closed")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    def cleanup(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def batch_ids(texts):
    docs = [json.loads(l) for l in texts[0].split("\n") if l.strip()]
    meta = json.loads(texts[1])
    if meta["returned"] != len(docs):
        raise AssertionError(f"returned {meta['returned']} but {len(docs)} documents: {texts}")
    return [d["_id"] for d in docs], meta


def verify_ok(srv, store, when):
    v = json.loads(srv.ok("verify", path=store)[0])
    if v.get("ok") is not True:
        raise AssertionError(f"verify not ok {when}: {json.dumps(v)[:1000]}")


def scenario(binary, tmp, how):
    store = os.path.join(tmp, f"{how}.omgdb")
    r = subprocess.run([binary, "create", store], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise AssertionError(f"omgdb create failed: {r.stderr}")
    servers = []
    try:
        a = Server(binary, cwd=tmp)
        servers.append(a)
        docs = [{"_id": i, "v": i} for i in range(N_DOCS)]
        res = json.loads(a.ok("insert_many", path=store, collection="items", documents=docs)[0])
        assert res["insertedCount"] == N_DOCS, res
        # Open the cursor and advance it once: both the open and a next must be persisted.
        seen, meta = batch_ids(a.ok("cursor_open", path=store, collection="items",
                                    batchSize=BATCH))
        assert len(seen) == BATCH and meta["exhausted"] is False, meta
        token = meta["token"]
        ids, meta = batch_ids(a.ok("cursor_next", path=store, token=token))
        assert len(ids) == BATCH and meta["exhausted"] is False, meta
        seen += ids
        token = meta["token"]
        plan = json.loads(a.ok("plan_update", path=store, collection="items",
                               filter={"v": {"$lt": 10}}, update={"$set": {"changed": True}})[0])
        assert plan["matchedCount"] == 10 and plan["wouldModifyCount"] == 10, plan
        plan_token = plan["token"]
        if how == "clean":
            a.stop_clean()
        else:
            a.kill()

        b = Server(binary, cwd=tmp)
        servers.append(b)
        for _ in range(N_DOCS + 2):  # bounded: one document per call at the least
            ids, meta = batch_ids(b.ok("cursor_next", path=store, token=token))
            seen += ids
            token = meta["token"]
            if meta["exhausted"]:
                break
        else:
            raise AssertionError("cursor never said exhausted")
        if seen != list(range(N_DOCS)):
            dup = sorted({i for i in seen if seen.count(i) > 1})
            miss = sorted(set(range(N_DOCS)) - set(seen))
            raise AssertionError(f"cursor after restart: duplicates {dup}, missing {miss}, "
                                 f"order {seen}")
        applied = json.loads(b.ok("apply", path=store, token=plan_token)[0])
        assert applied["matched"] == 10 and applied["modified"] == 10, applied
        change_id = applied["change_id"]
        got = sorted(json.loads(l)["_id"] for l in
                     b.ok("find", path=store, collection="items",
                          filter={"changed": True})[0].split("\n") if l.strip())
        if got != list(range(10)):
            raise AssertionError(f"after apply, changed documents are {got}")
        verify_ok(b, store, "after apply")
        rb = json.loads(b.ok("rollback", path=store, change_id=change_id)[0])
        assert rb["restored"] == 10, rb
        n = json.loads(b.ok("count_documents", path=store, collection="items",
                            filter={"changed": {"$exists": True}})[0])["count"]
        if n != 0:
            raise AssertionError(f"after rollback {n} documents still have `changed`")
        back = [json.loads(l) for l in b.ok("find", path=store, collection="items",
                                            filter={"_id": {"$lt": 10}})[0].split("\n")
                if l.strip()]
        if back != docs[:10]:
            raise AssertionError(f"after rollback documents are {back}")
        verify_ok(b, store, "after rollback")
        b.stop_clean()
    finally:
        for s in servers:
            s.cleanup()


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    failed = 0
    with tempfile.TemporaryDirectory(prefix="omgdb-restart-") as tmp:
        for how in ("clean", "sigkill"):
            t0 = time.monotonic()
            try:
                scenario(binary, tmp, how)
                print(f"restart ({how} stop): ok ({time.monotonic() - t0:.2f}s)")
            except Exception as e:  # report and go on to the next scenario
                failed += 1
                print(f"restart ({how} stop): FAILED: {type(e).__name__}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
