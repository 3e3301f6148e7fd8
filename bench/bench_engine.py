#!/usr/bin/env python3
"""omgdb engine benchmarks against raw RocksDB (db_bench), issue 3's "Measured in bench/".

Usage: bench/bench_engine.py /path/to/omgdb [options]   (bench/run.sh BIN --engine wraps this)

  (d) filter evaluation: `count_documents` with a filter that matches nothing but has to be
      evaluated on every one of 1,000,000 ~200-byte documents, vs `db_bench readseq` over a
      RocksDB of the same number of keys and value size; reported as a ratio (target <= 2).
  (e) writes: `import_jsonl` of the 1,000,000 documents and `update_many` of all of them
      (`$inc`), in documents per second, vs `db_bench fillseq` with the same value size and
      count, run in the same session (target >= 50% of the raw put rate).

Standard library only; needs `db_bench` (package rocksdb-tools: installed with apt-get when
missing). Every loop is bounded and every wait has a timeout. Writes bench/out/engine.json and
prints a short report. See bench/README.md.
"""

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in bench/
import bench  # noqa: E402  the harness of bench.py: Server, BenchError, log, proc_status, reap
from bench import BenchError, Server, log, proc_status  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out")

# A 1,000,000-document import or update is one long call; progress notifications are not asked
# for, so the reply is the only line for a while. Long, but still bounded.
CALL_TIMEOUT_S = 1800.0
CITIES = ["Lisbon", "Porto", "Braga", "Faro", "Coimbra", "Aveiro", "Evora", "Viseu"]


# ---------------------------------------------------------------------------------------------
# Documents: ~200 bytes of BSON each, the shape of a small user record.

def make_doc(i, rnd):
    return {
        "_id": i,
        "name": f"user {i:07d}",
        "email": f"user{i:07d}@example.com",
        "age": i % 90,
        "city": CITIES[i % len(CITIES)],
        "score": round(rnd.random() * 1000, 3),
        "active": i % 3 == 0,
        "tags": [f"t{i % 7}", f"t{i % 13}", f"t{i % 17}"],
        "address": {"street": f"{i % 500} Main St", "zip": f"{10000 + i % 89999}"},
    }


def bson_size(v):
    """Size in bytes of `v` encoded as a BSON document (int32/int64/double/string/bool/array/doc)."""

    def elem(key, x):
        n = 1 + len(key.encode()) + 1
        if isinstance(x, bool):
            return n + 1
        if isinstance(x, int):
            return n + (4 if -(2**31) <= x < 2**31 else 8)
        if isinstance(x, float):
            return n + 8
        if isinstance(x, str):
            return n + 4 + len(x.encode()) + 1
        if x is None:
            return n
        if isinstance(x, list):
            return n + doc({str(k): y for k, y in enumerate(x)})
        if isinstance(x, dict):
            return n + doc(x)
        raise TypeError(type(x))

    def doc(d):
        return 4 + sum(elem(k, x) for k, x in d.items()) + 1

    return doc(v)


def write_jsonl(path, docs, seed):
    rnd = random.Random(seed)
    sizes = []
    with open(path, "w") as f:
        for i in range(docs):
            d = make_doc(i, rnd)
            if i < 10_000:
                sizes.append(bson_size(d))
            f.write(json.dumps(d, separators=(",", ":")))
            f.write("\n")
    return round(statistics.mean(sizes))


# ---------------------------------------------------------------------------------------------
# db_bench

def ensure_db_bench():
    path = shutil.which("db_bench")
    if path:
        return path
    log("db_bench is missing: installing rocksdb-tools (apt-get)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "install", "-y", "rocksdb-tools"],
                ["apt-get", "update"],
                ["apt-get", "install", "-y", "rocksdb-tools"]):
        r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=900)
        if cmd[1] == "install" and r.returncode == 0:
            break
    path = shutil.which("db_bench")
    if not path:
        raise BenchError("db_bench not found and `apt-get install -y rocksdb-tools` did not provide it")
    return path


def db_bench(exe, db, benchmarks, num, value_size, key_size, extra=()):
    """Runs db_bench; returns {benchmark: {"micros_per_op", "ops_per_s"}} (the last of a name wins)."""
    argv = [exe, f"--db={db}", f"--benchmarks={benchmarks}", f"--num={num}", f"--value_size={value_size}",
            f"--key_size={key_size}", "--threads=1", "--compression_type=lz4", "--compression_ratio=0.5",
            "--statistics=0", "--histogram=0", *extra]
    log("  " + " ".join(argv[1:]))
    r = subprocess.run(argv, capture_output=True, text=True, timeout=CALL_TIMEOUT_S)
    if r.returncode != 0:
        raise BenchError(f"db_bench failed ({r.returncode}): {r.stderr[-800:]}")
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^(\w+)\s*:\s*([\d.]+) micros/op\s+(\d+) ops/sec", line)
        if m:
            out[m.group(1)] = {"micros_per_op": float(m.group(2)), "ops_per_s": int(m.group(3))}
    version = re.search(r"RocksDB:\s*version\s*(\S+)", r.stdout + r.stderr)
    out["_version"] = version.group(1) if version else None
    return out


# ---------------------------------------------------------------------------------------------
# omgdb

def timed_call(srv, name, args):
    t0 = time.perf_counter()
    text = srv.call_tool(name, args)
    return time.perf_counter() - t0, text


def cpu_seconds(pid):
    """utime + stime of a live process, all its threads (RocksDB's background ones included)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_timed_call(srv, name, args):
    """timed_call, also returning the server's CPU time for the call: on a shared machine the
    wall time swings with the load, the CPU time much less."""
    c0 = cpu_seconds(srv.proc.pid)
    secs, text = timed_call(srv, name, args)
    return secs, cpu_seconds(srv.proc.pid) - c0, text


def bench_engine(omgdb, work, docs, scan_runs, seed, batch_size):
    db_bench_exe = ensure_db_bench()
    store = os.path.join(work, "engine.omgdb")
    jsonl = os.path.join(work, "docs.jsonl")
    log(f"engine: writing {docs} documents to {jsonl}")
    value_size = write_jsonl(jsonl, docs, seed)
    key_size = 16
    res = {"documents": docs, "avg_bson_bytes": value_size, "jsonl_bytes": os.path.getsize(jsonl)}

    # (e) raw puts first, in the same session as omgdb's writes.
    log("engine: db_bench fillseq (raw RocksDB puts)")
    raw_db = os.path.join(work, "rocksdb")
    fill = db_bench(db_bench_exe, raw_db, "fillseq", docs, value_size, key_size)
    fill_sync = db_bench(db_bench_exe, os.path.join(work, "rocksdb-sync"), "fillseq", docs, value_size, key_size,
                         ["--sync=1", f"--batch_size={batch_size}"])
    shutil.rmtree(os.path.join(work, "rocksdb-sync"), ignore_errors=True)
    res["db_bench_version"] = fill.get("_version")

    subprocess.run([omgdb, "create", store], check=True, stdout=subprocess.DEVNULL)
    bench.REPLY_TIMEOUT_S = CALL_TIMEOUT_S / 4  # Server.request waits 4x this for a reply
    srv = Server(omgdb, os.path.join(work, "engine.stderr.log"), ["--scope", "all"])
    try:
        srv.initialize()
        log("engine: import_jsonl")
        secs, cpu, text = cpu_timed_call(srv, "import_jsonl", {"path": store, "collection": "users", "file": jsonl,
                                                                 "batchSize": batch_size})
        count = json.loads(srv.call_tool("count_documents", {"path": store, "collection": "users"}))["count"]
        if count != docs:
            raise BenchError(f"import_jsonl left {count} documents, expected {docs}: {text[:300]}")
        res["import_jsonl"] = {"seconds": round(secs, 3), "docs_per_s": round(docs / secs), "batch_size": batch_size,
                               "server_cpu_s": round(cpu, 2)}

        # (d) full scans. Warm-up once, then `scan_runs` measured runs of each.
        never = {"score": {"$lt": -1}}  # every document has a score in [0, 1000): evaluated, never true
        scans = {"filter_never_true": never, "no_filter": None, "filter_nested_never_true": {"address.zip": "none"}}
        res["scan"] = {}
        for name, flt in scans.items():
            args = {"path": store, "collection": "users"}
            if flt is not None:
                args["filter"] = flt
            times = []
            for r in range(scan_runs + 1):
                secs, text = timed_call(srv, "count_documents", args)
                want = 0 if flt is not None else docs
                if json.loads(text)["count"] != want:
                    raise BenchError(f"count_documents {flt} gave {text}, expected {want}")
                if r > 0:
                    times.append(secs)
            res["scan"][name] = {"filter": flt, "runs_s": [round(t, 3) for t in times],
                                 "median_s": round(statistics.median(times), 3),
                                 "docs_per_s": round(docs / statistics.median(times))}

        log("engine: update_many ($inc on every document, one atomic commit)")
        secs, cpu, text = cpu_timed_call(srv, "update_many", {"path": store, "collection": "users", "filter": {},
                                                              "update": {"$inc": {"age": 1}}})
        r = json.loads(text)
        if r.get("modifiedCount") != docs:
            raise BenchError(f"update_many: {text[:300]}")
        res["update_many"] = {"seconds": round(secs, 3), "docs_per_s": round(docs / secs), "server_cpu_s": round(cpu, 2)}
        res["omgdb_peak_rss_kib"] = proc_status(srv.proc.pid).get("VmHWM")
    finally:
        code, _ = srv.close()
    if code != 0:
        raise BenchError(f"the omgdb session exited with status {code}")
    res["store_bytes"] = du(store)

    # (d) raw iteration over the same number of keys and value size (the DB fillseq wrote,
    # compacted so that its shape is comparable to a settled store), warm: the second pass.
    log("engine: db_bench readseq (raw RocksDB iteration)")
    db_bench(db_bench_exe, raw_db, "compact", docs, value_size, key_size, ["--use_existing_db=1"])
    times = []
    for _ in range(scan_runs):
        rs = db_bench(db_bench_exe, raw_db, "readseq,readseq", docs, value_size, key_size, ["--use_existing_db=1"])
        times.append(rs["readseq"]["micros_per_op"] * docs / 1e6)
    raw_scan_s = statistics.median(times)
    res["raw_readseq"] = {"runs_s": [round(t, 3) for t in times], "median_s": round(raw_scan_s, 3),
                          "docs_per_s": round(docs / raw_scan_s), "rocksdb_bytes": du(raw_db)}
    res["raw_fillseq"] = {"docs_per_s": fill["fillseq"]["ops_per_s"], "settings": "sync=0, batch_size=1"}
    res["raw_fillseq_synced_batches"] = {"docs_per_s": fill_sync["fillseq"]["ops_per_s"],
                                         "settings": f"sync=1, batch_size={batch_size}"}

    f = res["scan"]["filter_never_true"]["median_s"]
    res["filter_scan_ratio"] = round(f / raw_scan_s, 2)
    res["filter_scan_ratio_target"] = 2.0
    res["filter_scan_meets_target"] = res["filter_scan_ratio"] <= 2.0
    raw_put = res["raw_fillseq"]["docs_per_s"]
    res["import_vs_fillseq"] = round(res["import_jsonl"]["docs_per_s"] / raw_put, 3)
    res["update_vs_fillseq"] = round(res["update_many"]["docs_per_s"] / raw_put, 3)
    res["write_target"] = 0.5
    return res


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("omgdb", help="path to the omgdb binary")
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--scan-runs", type=int, default=3, help="measured full scans of each kind")
    ap.add_argument("--batch-size", type=int, default=1000, help="import_jsonl batchSize (and db_bench's synced batches)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep the generated stores in bench/out/")
    ap.add_argument("--out", default=os.path.join(OUT, "engine.json"))
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
        "host": {"cpus": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version(),
                 "loadavg_at_start": list(os.getloadavg())},
    }
    failed = None
    work = tempfile.mkdtemp(prefix="work-engine-", dir=OUT)
    try:
        results["engine"] = bench_engine(omgdb, work, a.docs, a.scan_runs, a.seed, a.batch_size)
    except (BenchError, subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as e:
        failed = str(e)
        results["error"] = failed
    finally:
        if a.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    results["host"]["loadavg_at_end"] = list(os.getloadavg())
    with open(a.out, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    report(results, a.out)
    if failed:
        log(f"bench: FAILED: {failed}")
        return 1
    return 0


def report(r, out):
    p = print
    p(f"\nomgdb engine benchmarks — {r['omgdb_version'] or r['omgdb']} — {r['host']['cpus']} CPUs, {r['when']}")
    e = r.get("engine")
    if e:
        n = e["documents"]
        p(f"\n{n:,} documents, {e['avg_bson_bytes']} bytes of BSON on average; db_bench {e.get('db_bench_version')} "
          f"with value_size={e['avg_bson_bytes']}, key_size=16, lz4")
        p(f"\n(d) full scan with filter evaluation (count_documents, median of {len(e['raw_readseq']['runs_s'])})")
        s = e["scan"]
        row = lambda label, secs, rate: p(f"    {label:<44} {secs:8.3f} s  {rate:>11,} docs/s")
        for key in ("filter_never_true", "filter_nested_never_true"):
            row("filter " + json.dumps(s[key]["filter"]), s[key]["median_s"], s[key]["docs_per_s"])
        p(f"    {'no filter (a count, for reference)':<44} {s['no_filter']['median_s']:8.3f} s")
        row("db_bench readseq (raw iteration)", e["raw_readseq"]["median_s"], e["raw_readseq"]["docs_per_s"])
        p(f"    ratio filter scan / raw scan: {e['filter_scan_ratio']:.2f}  (target <= 2: "
          f"{'met' if e['filter_scan_meets_target'] else 'NOT met'})")
        p("\n(e) writes, documents per second")
        w = lambda label, rate, extra="": p(f"    {label:<44} {rate:>11,} docs/s  {extra}")
        w(f"import_jsonl (batchSize {e['import_jsonl']['batch_size']})", e["import_jsonl"]["docs_per_s"],
          f"({e['import_jsonl']['seconds']:.1f} s, {e['import_vs_fillseq']:.0%} of fillseq; "
          f"server CPU {e['import_jsonl'].get('server_cpu_s', 0):.1f} s)")
        w("update_many $inc on every document", e["update_many"]["docs_per_s"],
          f"({e['update_many']['seconds']:.1f} s, {e['update_vs_fillseq']:.0%} of fillseq; "
          f"server CPU {e['update_many'].get('server_cpu_s', 0):.1f} s)")
        w("db_bench fillseq (sync=0, batch_size=1)", e["raw_fillseq"]["docs_per_s"])
        w(f"db_bench fillseq ({e['raw_fillseq_synced_batches']['settings']})",
          e["raw_fillseq_synced_batches"]["docs_per_s"])
        ok = min(e["import_vs_fillseq"], e["update_vs_fillseq"]) >= e["write_target"]
        p(f"    target >= 50% of fillseq: {'met' if ok else 'NOT met'}; omgdb peak RSS "
          f"{e.get('omgdb_peak_rss_kib')} KiB; store {e['store_bytes']:,} bytes, "
          f"raw RocksDB {e['raw_readseq']['rocksdb_bytes']:,} bytes")
    if r.get("error"):
        p(f"\nerror: {r['error']}")
    p(f"\nwritten to {out}")


if __name__ == "__main__":
    sys.exit(main())
