#!/usr/bin/env python3
"""Write-ahead log damage (issue 16 item 10): a byte flipped in the middle of the WAL must not
silently drop the acknowledged writes after it.

  1. 200 inserts through `omgdb mcp` (each acknowledged, i.e. in the fsynced WAL), then SIGKILL.
  2. A copy of the store with its WAL cut inside the last record (a torn tail, the normal crash
     case) still opens, with every write but the torn one; a copy with zeros appended opens
     with every write.
  3. The store with one byte flipped mid-WAL refuses to open, saying the log is damaged before
     its end and naming `omgdb recover`.
  4. `omgdb recover` reports how many acknowledged writes it dropped; that number plus the
     documents left is 200; the store then opens, `verify` is clean, and a second
     `omgdb recover` drops nothing.

Usage: wal_corruption_test.py OMGDB_BINARY. Every wait is bounded; the store lives in a
temporary directory that is removed at the end.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

WRITES = 200
TIMEOUT = 60


def run(binary, *args, cwd):
    p = subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
    return p.returncode, p.stdout, p.stderr


def mcp_calls(binary, cwd, calls, kill=False):
    """Sends each tools/call in turn, waiting for its reply; SIGKILL at the end when `kill`."""
    proc = subprocess.Popen([binary, "mcp", "--scope", "all"], cwd=cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    replies = []
    try:
        for i, (name, arguments) in enumerate(calls, start=1):
            msg = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}}
            proc.stdin.write(json.dumps(msg) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            if not line:
                raise AssertionError(f"omgdb mcp exited before replying to call {i}")
            reply = json.loads(line)
            if reply.get("id") != i or reply["result"].get("isError"):
                raise AssertionError(f"call {i} ({name}) failed: {line[:300]}")
            replies.append(reply["result"]["content"][0]["text"])
    finally:
        if kill:
            proc.send_signal(signal.SIGKILL)
        else:
            proc.stdin.close()
        proc.wait(timeout=TIMEOUT)
    return replies


def wal_file(store):
    logs = [f for f in os.listdir(store) if re.fullmatch(r"[0-9]+\.log", f)]
    logs.sort()
    assert logs, f"no write-ahead log in {store}: {os.listdir(store)}"
    return os.path.join(store, logs[-1])


def documents(binary, cwd, store):
    code, out, err = run(binary, "inspect", store, cwd=cwd)
    assert code == 0, f"inspect {store}: exit {code}: {err}"
    info = json.loads(out)
    return sum(c["documents"] for c in info.get("collections", []))


def main():
    binary = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="omgdb-wal-")
    failures = []

    def check(what, cond, detail=""):
        if not cond:
            failures.append(f"{what}: {detail}")

    try:
        store = os.path.join(tmp, "s.omgdb")
        code, _, err = run(binary, "create", store, cwd=tmp)
        assert code == 0, err
        mcp_calls(binary, tmp, [("insert", {"path": store, "collection": "docs",
                                            "document": {"_id": i, "pad": "x" * 100}})
                                for i in range(WRITES)], kill=True)

        # A torn tail: cut the WAL inside its last record. The store opens as before.
        torn = os.path.join(tmp, "torn.omgdb")
        shutil.copytree(store, torn)
        wal = wal_file(torn)
        os.truncate(wal, os.path.getsize(wal) - 5)
        code, out, err = run(binary, "inspect", torn, cwd=tmp)
        check("a torn tail opens", code == 0, err)
        if code == 0:
            n = documents(binary, tmp, torn)
            check("a torn tail loses only the torn write", n == WRITES - 1, f"{n} documents")

        # A tail of zeros (a power loss on a file system that extends the file first) opens too.
        zeros = os.path.join(tmp, "zeros.omgdb")
        shutil.copytree(store, zeros)
        with open(wal_file(zeros), "ab") as f:
            f.write(bytes(5000))
        code, out, err = run(binary, "inspect", zeros, cwd=tmp)
        check("a tail of zeros opens", code == 0, err)
        if code == 0:
            n = documents(binary, tmp, zeros)
            check("a tail of zeros loses nothing", n == WRITES, f"{n} documents")

        # One byte flipped in the middle of the WAL.
        wal = wal_file(store)
        size = os.path.getsize(wal)
        with open(wal, "r+b") as f:
            f.seek(size // 2)
            b = f.read(1)
            f.seek(size // 2)
            f.write(bytes([b[0] ^ 0x5A]))
        code, out, err = run(binary, "inspect", store, cwd=tmp)
        check("a damaged WAL refuses to open", code == 1, f"exit {code}, stdout {out[:200]}")
        check("the refusal says the log is damaged before its end",
              "write-ahead log is damaged before its end" in err, err)
        check("the refusal names omgdb recover", f"omgdb recover {store}" in err, err)
        check("the refusal counts the writes it protects", "acknowledged write" in err, err)

        code, out, err = run(binary, "recover", store, cwd=tmp)
        check("recover succeeds", code == 0, err)
        m = re.search(r"dropped (\d+) acknowledged write", out)
        check("recover reports what it dropped", m is not None, out + err)
        left = documents(binary, tmp, store)
        if m:
            dropped = int(m.group(1))
            check("the loss is counted exactly", dropped + left == WRITES,
                  f"dropped {dropped}, {left} documents left")
            check("something was dropped", dropped > 0, out)
        check("recover keeps a copy of the damaged log", "copied to" in out and
              any(d.startswith("damaged-wal-") for d in os.listdir(store)), out)
        verify = mcp_calls(binary, tmp, [("verify", {"path": store})])
        check("verify is clean after recover", '"ok":true' in verify[0], verify[0][:300])
        code, out, err = run(binary, "recover", store, cwd=tmp)
        check("a second recover drops nothing", code == 0 and "nothing was dropped" in out, out + err)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    for f in failures:
        print("FAIL:", f)
    print(f"wal_corruption: {'ok' if not failures else str(len(failures)) + ' failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
