#!/usr/bin/env python3
"""omgdb benchmarks: MCP start-up latency, `get` throughput over stdio, clean build time.

Usage: bench/bench.py /path/to/omgdb [--build] [options]   (bench/run.sh wraps this)

Standard library only. Every loop is bounded by a run count or a deadline, and every wait
for the server has a timeout, so a hung server fails the run instead of hanging it.
Writes bench/out/results.json and prints a short report. See bench/README.md.
"""

import argparse
import json
import math
import os
import platform
import random
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "omgdb-bench", "version": "0.0.0"},
    },
}
INIT_LINE = (json.dumps(INIT, separators=(",", ":")) + "\n").encode()
REPLY_TIMEOUT_S = 30.0  # longest silence tolerated from a server that owes us a reply


class BenchError(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def pct(values, p):
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    s = sorted(values)
    k = max(1, math.ceil(p / 100.0 * len(s)))
    return s[k - 1]


def summary_ms(samples_ns):
    ms = [x / 1e6 for x in samples_ns]
    return {
        "median": round(statistics.median(ms), 3),
        "p95": round(pct(ms, 95), 3),
        "min": round(min(ms), 3),
        "max": round(max(ms), 3),
    }


def read_line(fd, buf, deadline):
    """Reads from fd until buf holds a full line; returns (line, rest)."""
    while b"\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            raise BenchError("timed out waiting for a line")
        r, _, _ = select.select([fd], [], [], left)
        if not r:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            raise BenchError("the process closed its stdout before answering")
        buf += chunk
    line, _, rest = buf.partition(b"\n")
    return line, rest


def reap(proc, timeout=10.0):
    """Closes stdin and waits; kills after `timeout`. Returns (exit status, seconds to exit)."""
    t0 = time.perf_counter()
    try:
        if proc.stdin and not proc.stdin.closed:
            proc.stdin.close()
    except OSError:
        pass
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
    return code, time.perf_counter() - t0


def proc_status(pid):
    """VmHWM and VmRSS of a live process, in KiB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, val = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                out[key] = int(val.split()[0])
    return out


# --------------------------------------------------------------------------------------------
# (a) Start-up: spawn → first reply line.


def time_first_line(argv):
    """Spawns argv, writes the initialize line, returns (ns until the first line, line, exit s)."""
    t0 = time.perf_counter_ns()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    try:
        proc.stdin.write(INIT_LINE)
        line, _ = read_line(proc.stdout.fileno(), b"", time.monotonic() + REPLY_TIMEOUT_S)
        t1 = time.perf_counter_ns()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    code, exit_s = reap(proc)
    if code != 0:
        raise BenchError(f"{argv[0]} exited with status {code} after stdin closed")
    return t1 - t0, line, exit_s


def bench_startup(omgdb, runs):
    log(f"start-up: {runs} runs of `omgdb mcp` and of /bin/cat (interleaved), 3 warm-up runs each")
    cat = shutil.which("cat") or "/bin/cat"
    for _ in range(3):
        time_first_line([omgdb, "mcp"])
        time_first_line([cat])
    omg, base, exits = [], [], []
    for _ in range(runs):
        ns, line, exit_s = time_first_line([omgdb, "mcp"])
        reply = json.loads(line)
        info = reply.get("result", {}).get("serverInfo", {})
        if reply.get("id") != 0 or info.get("name") != "omgdb":
            raise BenchError(f"unexpected initialize reply: {line[:300]!r}")
        omg.append(ns)
        exits.append(exit_s * 1e9)
        ns, line, _ = time_first_line([cat])
        if line + b"\n" != INIT_LINE:
            raise BenchError("cat did not echo the line")
        base.append(ns)
    o, b = summary_ms(omg), summary_ms(base)
    return {
        "runs": runs,
        "omgdb_initialize_ms": o,
        "baseline_cat_echo_ms": b,
        "ratio_median": round(o["median"] / b["median"], 2),
        "ratio_p95": round(o["p95"] / b["p95"], 2),
        "omgdb_minus_baseline_median_ms": round(o["median"] - b["median"], 3),
        "omgdb_exit_after_eof_ms": summary_ms(exits),
        "target_ms": 20,
        "meets_target": o["p95"] < 20,
    }


# --------------------------------------------------------------------------------------------
# (b) Throughput over stdio with N requests in flight.


class Server:
    """One `omgdb mcp` process spoken to over pipes (newline-delimited JSON-RPC)."""

    def __init__(self, omgdb, stderr_path, args=()):
        self.stderr_file = open(stderr_path, "wb")
        self.proc = subprocess.Popen(
            [omgdb, "mcp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr_file, bufsize=0
        )
        self.out = self.proc.stdout.fileno()
        self.inp = self.proc.stdin.fileno()
        self.buf = b""
        self.next_id = 1

    def write(self, data):
        view = memoryview(data)
        while view:
            n = os.write(self.inp, view)
            view = view[n:]

    def read_lines(self, timeout):
        """Blocks until at least one complete line is available; returns the lines."""
        deadline = time.monotonic() + timeout
        while True:
            if b"\n" in self.buf:
                *lines, self.buf = self.buf.split(b"\n")
                return lines
            left = deadline - time.monotonic()
            if left <= 0:
                raise BenchError(f"no reply from omgdb for {timeout:.0f} s")
            r, _, _ = select.select([self.out], [], [], left)
            if r:
                chunk = os.read(self.out, 1 << 20)
                if not chunk:
                    raise BenchError("omgdb closed its stdout (see the stderr log in bench/out/)")
                self.buf += chunk

    def request(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.write((json.dumps(msg, separators=(",", ":")) + "\n").encode())
        while True:
            for line in self.read_lines(REPLY_TIMEOUT_S * 4):
                if not line.strip():
                    continue
                reply = json.loads(line)
                if reply.get("id") == rid:
                    if "error" in reply:
                        raise BenchError(f"{method} failed: {reply['error']}")
                    return reply["result"]

    def initialize(self):
        self.write(INIT_LINE)
        for line in self.read_lines(REPLY_TIMEOUT_S):
            reply = json.loads(line)
            if reply.get("id") == 0 and "result" in reply:
                break
        else:
            raise BenchError("no initialize reply")
        self.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def call_tool(self, name, arguments):
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        text = "".join(c.get("text", "") for c in result.get("content", []))
        if result.get("isError"):
            raise BenchError(f"{name} failed: {text[:500]}")
        return text

    def close(self):
        code, secs = reap(self.proc, timeout=60)
        self.stderr_file.close()
        return code, secs


def load_store(omgdb, store, docs, batch, work):
    subprocess.run([omgdb, "create", store], check=True, stdout=subprocess.DEVNULL)
    srv = Server(omgdb, os.path.join(work, "load.stderr.log"))
    try:
        srv.initialize()
        t0 = time.perf_counter()
        for start in range(0, docs, batch):
            documents = [
                {"_id": i, "name": f"user {i}", "age": i % 90, "tags": [f"t{i % 7}", f"t{i % 13}"]}
                for i in range(start, min(docs, start + batch))
            ]
            res = json.loads(srv.call_tool("insert_many", {"path": store, "collection": "users", "documents": documents}))
            if res.get("insertedCount") != len(documents):
                raise BenchError(f"insert_many inserted {res.get('insertedCount')} of {len(documents)}")
        secs = time.perf_counter() - t0
        count = json.loads(srv.call_tool("count_documents", {"path": store, "collection": "users"}))["count"]
        if count != docs:
            raise BenchError(f"count_documents says {count}, expected {docs}")
        rss = proc_status(srv.proc.pid)
    finally:
        code, _ = srv.close()
    if code != 0:
        raise BenchError(f"the loading session exited with status {code}")
    return {
        "documents": docs,
        "batch": batch,
        "seconds": round(secs, 3),
        "docs_per_s": round(docs / secs),
        "peak_rss_kib": rss.get("VmHWM"),
    }


def closed_loop(srv, make_request, check_reply, inflight, duration, warmup):
    """Keeps `inflight` requests outstanding for `warmup` + `duration` seconds.

    make_request(id) -> bytes (one line); check_reply(reply dict, sent_id) -> None or raises.
    Only replies completed inside the measured window count. Returns figures and latencies.
    """
    sent_at = {}
    pending_ids = {}
    next_id = 1000
    latencies = []
    completed = 0
    errors = 0
    first_error = None

    def send(n):
        nonlocal next_id
        out = []
        now = time.perf_counter_ns()
        for _ in range(n):
            rid = next_id
            next_id += 1
            line, meta = make_request(rid)
            sent_at[rid] = now
            pending_ids[rid] = meta
            out.append(line)
        srv.write(b"".join(out))

    start = time.monotonic()
    measure_from = start + warmup
    stop_at = measure_from + duration
    measuring = False
    t_measure = None
    send(inflight)
    while True:
        now = time.monotonic()
        if not measuring and now >= measure_from:
            measuring = True
            completed, latencies, errors = 0, [], 0
            t_measure = time.perf_counter()
        if now >= stop_at:
            break
        lines = srv.read_lines(REPLY_TIMEOUT_S)
        done_at = time.perf_counter_ns()
        got = 0
        for line in lines:
            if not line:
                continue
            reply = json.loads(line)
            rid = reply.get("id")
            if rid not in sent_at:
                continue  # a notification, or something unexpected: not ours
            t_sent = sent_at.pop(rid)
            meta = pending_ids.pop(rid)
            got += 1
            try:
                check_reply(reply, meta)
            except BenchError as e:
                errors += 1
                first_error = first_error or str(e)
            if measuring:
                completed += 1
                latencies.append(done_at - t_sent)
        if time.monotonic() < stop_at and got:
            send(got)
    elapsed = time.perf_counter() - t_measure
    # Drain what is still in flight so the server ends idle (bounded by REPLY_TIMEOUT_S).
    while sent_at:
        for line in srv.read_lines(REPLY_TIMEOUT_S):
            if line:
                sent_at.pop(json.loads(line).get("id"), None)
    lat = summary_ms(latencies) if latencies else {}
    if latencies:
        lat["p99"] = round(pct([x / 1e6 for x in latencies], 99), 3)
    return {
        "calls": completed,
        "seconds": round(elapsed, 3),
        "calls_per_s": round(completed / elapsed),
        "latency_ms": lat,
        "errors": errors,
        "first_error": first_error,
    }


def run_phase(omgdb, work, name, store, docs, inflight, duration, warmup, seed):
    rng = random.Random(seed)
    srv = Server(omgdb, os.path.join(work, f"{name}.stderr.log"))
    try:
        srv.initialize()
        if name == "get":
            prefix = (
                '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get","arguments":{"path":'
                + json.dumps(store)
                + ',"collection":"users","id":%d}}}\n'
            )

            def make(rid):
                doc_id = rng.randrange(docs)
                return (prefix % (rid, doc_id)).encode(), doc_id

            checked = [0]

            def check(reply, doc_id):
                result = reply.get("result")
                if not result or result.get("isError"):
                    raise BenchError(f"get {doc_id} failed: {json.dumps(reply)[:300]}")
                checked[0] += 1
                if checked[0] % 64 == 1:  # decode a sample of the documents fully
                    doc = json.loads(result["content"][0]["text"])
                    if doc.get("_id") != doc_id or doc.get("age") != doc_id % 90:
                        raise BenchError(f"get {doc_id} returned {result['content'][0]['text'][:200]}")

        else:

            def make(rid):
                return b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % rid, None

            def check(reply, _):
                if reply.get("result") != {}:
                    raise BenchError(f"ping failed: {json.dumps(reply)[:300]}")

        figures = closed_loop(srv, make, check, inflight, duration, warmup)
        figures.update({"inflight": inflight, **{f"{k}_kib": v for k, v in proc_status(srv.proc.pid).items()}})
        figures["peak_rss_kib"] = figures.pop("VmHWM_kib")
        figures["rss_at_end_kib"] = figures.pop("VmRSS_kib")
    finally:
        code, secs = srv.close()
    figures["exit_status"] = code
    figures["exit_after_eof_s"] = round(secs, 3)
    if code != 0:
        raise BenchError(f"the {name} session exited with status {code}")
    return figures


def bench_throughput(omgdb, work, docs, batch, inflight, duration, warmup):
    store = os.path.join(work, "bench.omgdb")
    log(f"throughput: loading {docs} documents (insert_many, batches of {batch}) ...")
    load = load_store(omgdb, store, docs, batch, work)
    log(f"  loaded in {load['seconds']} s; get by _id, {inflight} in flight, {duration} s (+{warmup} s warm-up) ...")
    get = run_phase(omgdb, work, "get", store, docs, inflight, duration, warmup, seed=1)
    log(f"  get: {get['calls_per_s']} calls/s; ping baseline, same loop ...")
    ping = run_phase(omgdb, work, "ping", store, docs, inflight, duration, warmup, seed=2)
    return {
        "load": load,
        "get": get,
        "ping": ping,
        "get_over_ping": round(get["calls_per_s"] / ping["calls_per_s"], 3) if ping["calls_per_s"] else None,
    }


# --------------------------------------------------------------------------------------------
# (c) Clean build.


def bench_build(jobs):
    os.makedirs(OUT, exist_ok=True)
    build_dir = tempfile.mkdtemp(prefix="build-clean-", dir=OUT)
    logfile = os.path.join(OUT, "build.log")
    env = dict(os.environ, CCACHE_DISABLE="1")
    log(f"build: fresh configure in {build_dir}, then cmake --build -j{jobs} with CCACHE_DISABLE=1 (log: {logfile}) ...")
    try:
        with open(logfile, "wb") as lf:
            t0 = time.perf_counter()
            cfg = subprocess.run(
                ["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                stdout=lf, stderr=subprocess.STDOUT, env=env, timeout=600,
            )
            t1 = time.perf_counter()
            if cfg.returncode != 0:
                raise BenchError(f"configure failed (see {logfile})")
            bld = subprocess.run(
                ["cmake", "--build", build_dir, "-j", str(jobs)],
                stdout=lf, stderr=subprocess.STDOUT, env=env, timeout=3 * 3600,
            )
            t2 = time.perf_counter()
        return {
            "jobs": jobs,
            "build_type": "RelWithDebInfo",
            "ccache": "disabled",
            "configure_s": round(t1 - t0, 2),
            "build_s": round(t2 - t1, 2),
            "succeeded": bld.returncode == 0,
            "log": os.path.relpath(logfile, ROOT),
        }
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)


# --------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("omgdb", help="path to the omgdb binary")
    ap.add_argument("--build", action="store_true", help="also time a clean build of the whole project")
    ap.add_argument("--build-jobs", type=int, default=2)
    ap.add_argument("--startup-runs", type=int, default=50)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=1_000)
    ap.add_argument("--inflight", type=int, default=64)
    ap.add_argument("--duration", type=float, default=10.0, help="measured seconds per throughput phase")
    ap.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each phase")
    ap.add_argument("--skip-startup", action="store_true")
    ap.add_argument("--skip-throughput", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the generated store in bench/out/")
    ap.add_argument("--out", default=os.path.join(OUT, "results.json"))
    a = ap.parse_args()

    omgdb = os.path.abspath(a.omgdb)
    if not (os.path.isfile(omgdb) and os.access(omgdb, os.X_OK)):
        ap.error(f"{a.omgdb} is not an executable")
    os.makedirs(OUT, exist_ok=True)
    os.environ.pop("OMGDB_LOG_LEVEL", None)

    version = subprocess.run([omgdb, "--version"], capture_output=True, text=True).stdout.strip().split("\n")[0]
    results = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "omgdb": omgdb,
        "omgdb_version": version,
        "host": {
            "cpus": os.cpu_count(),
            "kernel": platform.release(),
            "python": platform.python_version(),
            "loadavg_at_start": list(os.getloadavg()),
        },
    }
    failed = None
    work = tempfile.mkdtemp(prefix="work-", dir=OUT)
    try:
        if not a.skip_startup:
            results["startup"] = bench_startup(omgdb, a.startup_runs)
        if not a.skip_throughput:
            results["throughput"] = bench_throughput(
                omgdb, work, a.docs, a.batch, a.inflight, a.duration, a.warmup
            )
        if a.build:
            results["build"] = bench_build(a.build_jobs)
    except (BenchError, subprocess.CalledProcessError, OSError) as e:
        failed = str(e)
        results["error"] = failed
    finally:
        if a.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    with open(a.out, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    report(results, a.out)
    if failed:
        log(f"bench: FAILED: {failed}")
        return 1
    if results.get("build") and not results["build"]["succeeded"]:
        return 1
    return 0


def report(r, out):
    p = print
    p(f"\nomgdb benchmarks — {r['omgdb_version'] or r['omgdb']} — {r['host']['cpus']} CPUs, {r['when']}")
    s = r.get("startup")
    if s:
        o, b = s["omgdb_initialize_ms"], s["baseline_cat_echo_ms"]
        p(f"\n(a) start-up, {s['runs']} runs: spawn → initialize reply")
        p(f"    omgdb mcp        median {o['median']:7.2f} ms   p95 {o['p95']:7.2f} ms   (min {o['min']:.2f}, max {o['max']:.2f})")
        p(f"    /bin/cat echo    median {b['median']:7.2f} ms   p95 {b['p95']:7.2f} ms")
        p(f"    ratio            median {s['ratio_median']:7.2f} x    p95 {s['ratio_p95']:7.2f} x    "
          f"(omgdb − baseline: {s['omgdb_minus_baseline_median_ms']:.2f} ms)")
        p(f"    target p95 < {s['target_ms']} ms: {'met' if s['meets_target'] else 'NOT met'}; "
          f"exit after stdin EOF median {s['omgdb_exit_after_eof_ms']['median']:.2f} ms")
    t = r.get("throughput")
    if t:
        ld, g, pg = t["load"], t["get"], t["ping"]
        p(f"\n(b) stdio throughput, {g['inflight']} requests in flight, {g['seconds']} s measured per phase")
        p(f"    load      {ld['documents']} docs via insert_many×{ld['batch']} in {ld['seconds']} s "
          f"({ld['docs_per_s']} docs/s), peak RSS {ld['peak_rss_kib'] / 1024:.1f} MiB")
        for name, f in (("get", g), ("ping", pg)):
            lat = f["latency_ms"]
            p(f"    {name:<9} {f['calls_per_s']:>8} calls/s   latency p50 {lat.get('median', 0):.2f} ms "
              f"p99 {lat.get('p99', 0):.2f} ms   peak RSS {f['peak_rss_kib'] / 1024:.1f} MiB   errors {f['errors']}")
        p(f"    get/ping  {t['get_over_ping']}")
    bd = r.get("build")
    if bd:
        p(f"\n(c) clean build (-j{bd['jobs']}, ccache disabled, {bd['build_type']}): configure {bd['configure_s']} s, "
          f"build {bd['build_s']} s{'' if bd['succeeded'] else '  — BUILD FAILED, see ' + bd['log']}")
    if r.get("error"):
        p(f"\nerror: {r['error']}")
    p(f"\nresults: {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
