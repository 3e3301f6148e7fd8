"""The e2e harness: the work directory and environment, `check`, an `omgdb mcp` client over
stdio, an `omgdb serve` client over HTTP, and the `omgdb` CLI. Imported by e2e.py, which is run
as `e2e.py <omgdb binary> <work dir>`."""
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


BIN, WORK = sys.argv[1], sys.argv[2]
ENV = dict(os.environ, XDG_STATE_HOME=f"{WORK}/state", XDG_RUNTIME_DIR=f"{WORK}/rt", HOME=f"{WORK}/home",
           XDG_CONFIG_HOME=f"{WORK}/cfg", OMGDB_LOG_LEVEL="warning")
for d in ("state", "rt", "home", "cfg"):
    os.makedirs(f"{WORK}/{d}", exist_ok=True)
os.chmod(f"{WORK}/rt", 0o700)
HISTORY = f"{WORK}/state/omgdb/sql/history"
SQL_TOOLS = ["getActiveSql", "getActiveConnectionContext", "getSchemaSummary", "getTableIndexes", "explainSql",
             "getLatestSqlExecutionError", "proposeSqlEdit", "executeSql"]
failures = []
stats = {"checks": 0}


def check(cond, what):
    stats["checks"] += 1
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", flush=True)
    return cond


class Mcp:
    """One `omgdb mcp` process over stdio."""

    def __init__(self, config, scope="read-write"):
        self.err = open(f"{WORK}/mcp-{time.time_ns()}.log", "w")
        self.p = subprocess.Popen([BIN, "mcp", "--config", config, "--scope", scope], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err, env=ENV, text=True, bufsize=1)
        self.answers, self.cv, self.next_id = {}, threading.Condition(), 0
        threading.Thread(target=self._read, daemon=True).start()
        self.wait(self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                              "clientInfo": {"name": "e2e", "version": "1"}}))
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self):
        for line in self.p.stdout:
            msg = json.loads(line)
            if "id" in msg:
                with self.cv:
                    self.answers[msg["id"]] = msg
                    self.cv.notify_all()

    def send(self, obj):
        self.p.stdin.write(json.dumps(obj) + "\n")
        self.p.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait(self, rid, timeout=30):
        with self.cv:
            self.cv.wait_for(lambda: rid in self.answers, timeout)
            return self.answers.get(rid)

    def start(self, name, args):
        return self.request("tools/call", {"name": name, "arguments": args})

    def outcome(self, rid, timeout=30):
        msg = self.wait(rid, timeout)
        if msg is None:
            return None
        res = msg["result"]
        text = res["content"][0]["text"]
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        return res.get("isError", False), text, parsed

    def call(self, name, args, timeout=30):
        out = self.outcome(self.start(name, args), timeout)
        if out is None:
            return True, "no answer", None
        return out

    def tools(self):
        return [t["name"] for t in self.wait(self.request("tools/list", {}))["result"]["tools"]]

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(15)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.err.close()


def cli(*args, stdin=None):
    r = subprocess.run([BIN, *args], input=stdin, capture_output=True, text=True, env=ENV, timeout=30)
    return r.returncode, r.stdout, r.stderr


def pending(expect=1, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        rc, out, _ = cli("approvals", "list", "--json")
        if rc == 0:
            items = json.loads(out)["pending"]
            if len(items) >= expect:
                return items
        time.sleep(0.05)
    return []


def none_pending(timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        rc, out, _ = cli("approvals", "list", "--json")
        if rc != 0 or not json.loads(out)["pending"]:
            return True
        time.sleep(0.05)
    return False


class Http:
    """`omgdb serve --no-auth` on a free loopback port, and one MCP session on it."""

    def __init__(self, config):
        self.p = subprocess.Popen([BIN, "serve", "--no-auth", "--listen", "127.0.0.1:0", "--config", config,
                                   "--state-dir", f"{WORK}/http-state"], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, text=True)
        self.port = None
        for line in self.p.stderr:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/mcp", line)
            if m:
                self.port = int(m.group(1))
                break
        threading.Thread(target=lambda: [None for _ in self.p.stderr], daemon=True).start()
        self.session, self.next_id = None, 0
        self.session = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                             "clientInfo": {"name": "e2e", "version": "1"}}})[1]
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, msg, timeout=60):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        c.request("POST", "/mcp", json.dumps(msg), headers)
        r = c.getresponse()
        sid = r.getheader("Mcp-Session-Id")
        body = r.read().decode()
        c.close()
        if "id" not in msg:
            return None, sid
        if r.getheader("Content-Type", "").startswith("text/event-stream"):
            for line in body.splitlines():
                if line.startswith("data:"):
                    m = json.loads(line[5:])
                    if m.get("id") == msg["id"]:
                        return m, sid
            return None, sid
        return (json.loads(body) if body else None), sid

    def call(self, name, args):
        self.next_id += 1
        m, _ = self.post({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                          "params": {"name": name, "arguments": args}})
        if m is None or "result" not in m:
            return True, json.dumps(m) if m else "no answer", None
        text = m["result"]["content"][0]["text"]
        try:
            return m["result"].get("isError", False), text, json.loads(text)
        except ValueError:
            return m["result"].get("isError", False), text, None

    def metric(self, name):
        """The value of an unlabelled gauge on /metrics, or None when it is absent."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        c.request("GET", "/metrics")
        body = c.getresponse().read().decode()
        c.close()
        for line in body.splitlines():
            if line.startswith(name + " "):
                return int(float(line.split()[1]))
        return None

    def end_session(self):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        c.request("DELETE", "/mcp", headers={"Mcp-Session-Id": self.session})
        status = c.getresponse().status
        c.close()
        return status

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
CFG = ""  # the main config file, set by e2e.py
