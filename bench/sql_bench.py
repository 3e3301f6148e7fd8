#!/usr/bin/env python3
"""executeSql of a 1,000-row SELECT over stdio, omgdb vs the reference PostgreSQL MCP server.

Usage: sql_bench.py <omgdb binary> <work dir> <reference index.js> [--calls N] [--warmup N]
                    [--rounds N] [--compare <other omgdb binary>].
Reads the database from OMGDB_TEST_PG_* (bench/sql_run.sh starts it). One client, one call in
flight at a time (what an agent does); each call's latency is the time from writing the
request to reading its reply, which must hold 1,000 rows (a wrong reply fails the run). The
servers run side by side and take turns in `--rounds` slices, so that the load of a shared
machine falls on all of them alike.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SQL = "SELECT * FROM bench_rows ORDER BY id"


class Client:
    def __init__(self, argv, env):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  env=env)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                                    "clientInfo": {"name": "sql-bench", "version": "1"}})
        self.p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.p.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            msg = json.loads(line)
            if msg.get("id") == rid:
                return msg

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()


def rows_in(msg, server):
    text = msg["result"]["content"][0]["text"]
    if msg["result"].get("isError"):
        raise RuntimeError(f"{server}: error result: {text[:300]}")
    body = json.loads(text)
    return len(body["rows"]) if isinstance(body, dict) else len(body)


def timed_calls(name, client, tool, args, calls, lat):
    """Makes `calls` calls, appending each latency (ms) to `lat`; returns the seconds taken."""
    t0 = time.perf_counter()
    for _ in range(calls):
        s = time.perf_counter()
        n = rows_in(client.request("tools/call", {"name": tool, "arguments": args}), name)
        lat.append((time.perf_counter() - s) * 1000)
        if n != 1000:
            raise RuntimeError(f"{name}: a reply with {n} rows")
    return time.perf_counter() - t0


def measure_interleaved(servers, calls, warmup, rounds):
    """Each server gets `calls` measured calls, in `rounds` slices taken in turn, so that a
    change in the machine's load hits every server alike (the machine is shared)."""
    for name, client, tool, args in servers:
        for _ in range(warmup):
            if rows_in(client.request("tools/call", {"name": tool, "arguments": args}), name) != 1000:
                raise RuntimeError(f"{name}: a reply without 1,000 rows")
    lat = {name: [] for name, *_ in servers}
    secs = {name: 0.0 for name, *_ in servers}
    per_round = [calls // rounds + (1 if r < calls % rounds else 0) for r in range(rounds)]
    for n in per_round:
        for name, client, tool, args in servers:
            secs[name] += timed_calls(name, client, tool, args, n, lat[name])
    out = {}
    for name, *_ in servers:
        l = sorted(lat[name])
        out[name] = {"calls": calls, "calls_per_second": round(calls / secs[name], 1),
                     "p50_ms": round(statistics.median(l), 2), "p99_ms": round(l[min(len(l) - 1, int(len(l) * 0.99))], 2),
                     "max_ms": round(l[-1], 2)}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("omgdb")
    ap.add_argument("work")
    ap.add_argument("reference")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=10, help="slices in which the servers take turns")
    ap.add_argument("--compare", help="a second omgdb binary (e.g. a build from before a change), measured "
                                      "interleaved with the first as omgdb_compare")
    a = ap.parse_args()
    e = os.environ
    port, user, password, db = e["OMGDB_TEST_PG_PORT"], e["OMGDB_TEST_PG_USER"], e["OMGDB_TEST_PG_PASSWORD"], e["OMGDB_TEST_PG_DB"]
    cfg = os.path.join(a.work, "omgdb.toml")
    with open(cfg, "w") as f:
        f.write(f'[[connections]]\nname = "bench"\ndialect = "postgres"\nhost = "127.0.0.1"\nport = {port}\n'
                f'user = "{user}"\ndatabase = "{db}"\npassword = "${{env:BENCH_PG_PASSWORD}}"\n'
                f'mcp_access = "read-only"\napprove = "writes"\npool_size = 2\n')
    env = dict(e, BENCH_PG_PASSWORD=password, XDG_STATE_HOME=f"{a.work}/state", XDG_RUNTIME_DIR=f"{a.work}/rt",
               XDG_CONFIG_HOME=f"{a.work}/cfg", OMGDB_LOG_LEVEL="warning")
    results = {"query": SQL, "rows": 1000, "rounds": a.rounds}
    exec_args = {"connection": "bench", "sql": SQL, "limit": 1000}
    servers = [("omgdb", Client([a.omgdb, "mcp", "--config", cfg], env), "executeSql", exec_args)]
    if a.compare:
        servers.append(("omgdb_compare", Client([a.compare, "mcp", "--config", cfg], env), "executeSql", exec_args))
    if os.path.exists(a.reference):
        url = f"postgresql://{user}:{password}@127.0.0.1:{port}/{db}"
        servers.append(("reference_server_postgres", Client(["node", a.reference, url], dict(e)), "query", {"sql": SQL}))
    try:
        results.update(measure_interleaved(servers, a.calls, a.warmup, max(1, a.rounds)))
    finally:
        for _, client, *_ in servers:
            client.close()
    if "reference_server_postgres" in results:
        results["throughput_ratio"] = round(results["omgdb"]["calls_per_second"] /
                                            results["reference_server_postgres"]["calls_per_second"], 2)
    if "omgdb_compare" in results:
        results["omgdb_over_compare"] = round(results["omgdb"]["calls_per_second"] /
                                              results["omgdb_compare"]["calls_per_second"], 2)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "sql_results.json")
    with open(out, "w") as f:
        json.dump(results, f, indent=2)
    for k in ("omgdb", "omgdb_compare", "reference_server_postgres"):
        if k in results:
            r = results[k]
            print(f"{k:28} {r['calls_per_second']:8} calls/s   p50 {r['p50_ms']} ms   p99 {r['p99_ms']} ms")
    if "throughput_ratio" in results:
        print(f"omgdb / reference throughput: {results['throughput_ratio']}x (target >= 3x)")
    if "omgdb_over_compare" in results:
        print(f"omgdb / omgdb_compare throughput: {results['omgdb_over_compare']}x")
    print(f"written to {out}")


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:  # a failed run says why, with a non-zero status
        print(f"sql bench failed: {exc}", file=sys.stderr)
        sys.exit(1)
