"""Approval paths end to end: reject, expiry, cancellation, active-connection switch, client
gone, replay, an approval carrying SQL, fail-closed; no starvation; the same over HTTP."""
import hashlib
import http.client
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time

import harness
from harness import WORK, BIN, ENV, Mcp, Http, check, cli, pending, none_pending
from databases import write_config


def approval_paths(db):
    d = db.dialect
    m = Mcp(harness.CFG)
    fp = db.fingerprint()

    def write(marker, connection=f"{d}_rw"):
        args = {"sql": f"INSERT INTO people VALUES ({marker},'m{marker}','row-secret-{marker}')"}
        if connection:
            args["connection"] = connection
        return m.start("executeSql", args)

    watcher = subprocess.Popen([BIN, "approvals", "watch", "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env=ENV, text=True)
    rid = write(70)
    p = pending()
    seen = json.loads(watcher.stdout.readline() or "{}")
    watcher.terminate()
    watcher.wait()
    check(p and seen.get("id") == p[0]["id"] and "row-secret-70" in seen.get("sql", ""),
          f"{d}: `omgdb approvals watch` prints the new approval with its SQL: {seen}")
    if p:
        cli("approvals", "reject", p[0]["id"])
    err, text, _ = m.outcome(rid) or (True, "no answer", None)
    check(err and "rejected" in text and "nothing ran" in text, f"{d}: rejection: {text}")

    rid = write(71)
    p = pending()
    err, text, _ = m.outcome(rid, 20) or (False, "no answer", None)
    check(err and "expired" in text, f"{d}: expiry: {text}")
    if p:
        check(cli("approvals", "approve", p[0]["id"])[0] != 0, f"{d}: an expired approval cannot be approved")

    rid = write(72)
    p = pending()
    m.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
    check(none_pending(), f"{d}: cancellation withdraws the approval")
    if p:
        check(cli("approvals", "approve", p[0]["id"])[0] != 0, f"{d}: a cancelled request cannot be approved")

    cli("sql", "use", f"{d}_rw", "--config", harness.CFG)
    rid = write(73, connection=None)
    p = pending()
    cli("sql", "use", f"{d}_ro", "--config", harness.CFG)
    err, text, _ = m.outcome(rid) or (False, "no answer", None)
    check(err and "active connection changed" in text, f"{d}: switching the active connection: {text}")
    cli("sql", "use", f"{d}_rw", "--config", harness.CFG)

    rid = write(74)
    p = pending()
    if p:
        sock_dir = f"{WORK}/rt/omgdb/admin"
        answer = None
        for s in os.listdir(sock_dir):
            c = socket.socket(socket.AF_UNIX)
            try:
                c.connect(f"{sock_dir}/{s}")
                c.sendall((json.dumps({"op": "approve", "id": p[0]["id"], "sql": "DELETE FROM people"}) + "\n").encode())
                answer = json.loads(c.makefile().readline())
                if "no pending" not in answer.get("error", ""):
                    break
            except OSError:
                pass
            finally:
                c.close()
        check(answer is not None and answer["ok"] is False, f"{d}: an approval carrying SQL is refused: {answer}")
        cli("approvals", "reject", p[0]["id"])
    m.outcome(rid)
    check(db.fingerprint() == fp, f"{d}: no refused, expired, cancelled or switched write ran")
    m.close()

    m = Mcp(harness.CFG)
    rid = m.start("executeSql", {"connection": f"{d}_rw", "sql": "INSERT INTO people VALUES (75,'m75','row-secret-75')"})
    p = pending()
    m.close()  # the client goes away: stdin closes
    check(none_pending(), f"{d}: a departed client's approval is withdrawn")
    if p:
        check(cli("approvals", "approve", p[0]["id"])[0] != 0, f"{d}: a departed client's request cannot be approved")
    check(db.fingerprint() == fp, f"{d}: the departed client's write did not run")

    closed = write_config(f"{WORK}/closed.toml", [db], approvals=False)
    m = Mcp(closed)
    for sql in ("SELECT 1", "INSERT INTO people VALUES (76,'m76',NULL)"):
        err, text, _ = m.call("executeSql", {"connection": f"{d}_rw", "sql": sql})
        check(err and "no person can be reached" in text and "[approvals] enabled = true" in text,
              f"{d}: without approvals, executeSql fails closed and says how to enable them: {text}")
    err, text, _ = m.call("executeSql", {"connection": f"{d}_auto", "sql": "SELECT count(*) FROM people"})
    check(not err, f"{d}: approve = writes still runs reads without a person: {text[:200]}")
    m.close()
    check(db.fingerprint() == fp, f"{d}: fail-closed ran nothing")


def no_starvation(db):
    """One configured worker: four calls wait for a person, a fifth is refused, reads still answer."""
    d = db.dialect
    cfg = write_config(f"{WORK}/one-worker.toml", [db], timeout="30s")
    with open(cfg) as f:
        text = f.read()
    with open(cfg, "w") as f:
        f.write("workers = 1\n" + text)
    m = Mcp(cfg)
    waiting = [m.start("executeSql", {"connection": f"{d}_rw", "sql": f"SELECT {i}"}) for i in range(4)]
    items = pending(expect=4)
    check(len(items) == 4, f"{d}: four approvals wait at once ({len(items)})")
    err, text, _ = m.call("executeSql", {"connection": f"{d}_rw", "sql": "SELECT 5"}, timeout=10)
    check(err and "already waiting" in text, f"{d}: a fifth is refused with a reason: {text}")
    started = time.time()
    err, text, _ = m.call("getActiveConnectionContext", {"connection": f"{d}_ro"}, timeout=10)
    err2, text2, _ = m.call("executeSql", {"connection": f"{d}_auto", "sql": "SELECT 1"}, timeout=10)
    check(not err and not err2 and time.time() - started < 5, f"{d}: read tools answer while the approvals wait")
    for it in items:
        cli("approvals", "reject", it["id"])
    for rid in waiting:
        out = m.outcome(rid, 10)
        check(out is not None and out[0] and "rejected" in out[1], f"{d}: each waiting call ends rejected")
    m.close()


def http_scenario(db):
    """The same approvals over `omgdb serve`: approve, session end, read tools while waiting, reload."""
    d = db.dialect
    cfg = write_config(f"{WORK}/http.toml", [db], timeout="20s")
    h = Http(cfg)
    check(h.port is not None and h.session, "omgdb serve started with SQL connections")
    err, text, _ = h.call("executeSql", {"connection": f"{d}_auto", "sql": "SELECT count(*) FROM people"})
    check(not err, f"http: a read runs without a person on approve = writes: {text[:200]}")
    box = {}
    t = threading.Thread(target=lambda: box.update(r=h.call("executeSql", {
        "connection": f"{d}_rw", "sql": "INSERT INTO people VALUES (80,'m80','row-secret-80')"})))
    t.start()
    p = pending()
    check(h.metric("omgdb_sql_pending_approvals") == (1 if p else None),
          "http: /metrics counts the approval that waits")
    started = time.time()
    err, text, _ = h.call("getActiveConnectionContext", {"connection": f"{d}_ro"})
    check(not err and time.time() - started < 5, "http: read tools answer while an approval waits")
    if p:
        cli("approvals", "approve", p[0]["id"])
    t.join(30)
    check(h.metric("omgdb_sql_pending_approvals") == 0, "http: /metrics shows no approval waiting once decided")
    err, text, r = box.get("r", (True, "no answer", None))
    check(not err and db.count("id = 80") == 1, f"http: the approved write committed: {text[:200]}")

    fp = db.fingerprint()
    t = threading.Thread(target=lambda: box.update(r=h.call("executeSql", {
        "connection": f"{d}_rw", "sql": "INSERT INTO people VALUES (81,'m81','row-secret-81')"})))
    t.start()
    p = pending()
    check(h.end_session() in (200, 202, 204), "http: the client ends its session")
    check(none_pending(), "http: ending the session withdraws its approval")
    if p:
        check(cli("approvals", "approve", p[0]["id"])[0] != 0, "http: a closed session's request cannot be approved")
    t.join(30)
    check(db.fingerprint() == fp, "http: the closed session's write did not run")

    with open(cfg) as f:
        text = f.read()
    with open(cfg, "w") as f:
        f.write(text.replace(f'name = "{d}_rw"\nlabel = "{d} read-write"\ndialect = "{d}"\nmcp_access = "read-write"',
                             f'name = "{d}_rw"\nlabel = "{d} read-write"\ndialect = "{d}"\nmcp_access = "off"'))
    h.p.send_signal(signal.SIGHUP)
    time.sleep(1)
    h2 = Http.__new__(Http)
    h2.port, h2.session, h2.next_id, h2.p = h.port, None, 0, h.p
    h2.session = h2.post({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "e2e", "version": "1"}}})[1]
    err, text, _ = h2.call("getActiveSql", {"connection": f"{d}_rw"})
    check(err and "not available" in text, f"http: a reloaded `off` applies from the next request: {text}")
    h.stop()
