#!/usr/bin/env python3
"""What the op-log costs, and how long `verify` takes (issue #4's measurements).

  (i) `insert_many` throughput (documents/s, batches of 1,000 documents, one call at a time,
      each call one synced WriteBatch) of the normal binary against a benchmark-only build
      whose op-log writes are disabled (-DOMGDB_BENCH_NO_OPLOG=ON, build/bench-nooplog; built by
      this script), interleaved run by run so both see the same machine load.
      Reported: the op-log's share of the time, the median over the interleaved pairs
      (target: under 30 %).
  (j) `verify` (op-log replay and hashes) on a store of N documents, as seconds per million.

Usage: bench_oplog.py OMGDB [--docs 200000] [--runs 3] [--verify-docs 1000000]
Writes bench/out/oplog.json.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench import BenchError, Server, log  # noqa: E402


def build_nooplog():
    build = os.path.join(ROOT, 'build', 'bench-nooplog')
    if not os.path.exists(os.path.join(build, 'CMakeCache.txt')):
        subprocess.run(['cmake', '-S', ROOT, '-B', build, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
                        '-DOMGDB_BENCH_NO_OPLOG=ON', '-DBUILD_TESTING=OFF'], check=True, stdout=subprocess.DEVNULL)
    log('building the benchmark-only binary without op-log writes (build/bench-nooplog)')
    subprocess.run(['cmake', '--build', build, '--target', 'omgdb', '-j', str(os.cpu_count() or 2)], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(build, 'omgdb')


def make_docs(n, seed):
    rnd = random.Random(seed)
    return [{'_id': i, 'name': f'user {i}', 'age': rnd.randint(18, 90), 'city': rnd.choice(['ber', 'lis', 'nyc']),
             'tags': [rnd.choice('abcdef') for _ in range(3)], 'score': rnd.random()} for i in range(n)]


def insert_run(omgdb, work, name, docs, batch):
    store = os.path.join(work, f'{name}.omgdb')
    subprocess.run([omgdb, 'create', store], check=True, capture_output=True)
    srv = Server(omgdb, os.path.join(work, f'{name}.stderr'))
    srv.initialize()
    t0 = time.perf_counter()
    for i in range(0, len(docs), batch):
        srv.call_tool('insert_many', {'path': store, 'collection': 'users', 'documents': docs[i:i + batch]})
    elapsed = time.perf_counter() - t0
    srv.close()
    subprocess.run(['rm', '-rf', store], check=True)
    return len(docs) / elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('omgdb')
    ap.add_argument('--docs', type=int, default=200000)
    ap.add_argument('--batch', type=int, default=1000)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--verify-docs', type=int, default=1000000)
    args = ap.parse_args()
    nooplog = build_nooplog()
    os.makedirs(os.path.join(HERE, 'out'), exist_ok=True)
    results = {'docs': args.docs, 'batch': args.batch, 'runs': []}
    docs = make_docs(args.docs, 7)
    with tempfile.TemporaryDirectory(dir=os.path.join(HERE, 'out')) as work:
        log(f'(i) insert_many of {args.docs} documents in batches of {args.batch}, {args.runs} interleaved runs')
        with_log, without = [], []
        for r in range(args.runs):
            with_log.append(insert_run(args.omgdb, work, f'with-{r}', docs, args.batch))
            without.append(insert_run(nooplog, work, f'without-{r}', docs, args.batch))
            log(f'  run {r + 1}: {with_log[-1]:,.0f} docs/s with the op-log, {without[-1]:,.0f} without')
            results['runs'].append({'with_oplog_docs_per_s': with_log[-1], 'without_oplog_docs_per_s': without[-1]})
        # Each run pairs two neighbouring measurements; the median pair is the figure.
        shares = sorted(1 - w / wo for w, wo in zip(with_log, without))
        results['with_oplog_docs_per_s'] = statistics.median(with_log)
        results['without_oplog_docs_per_s'] = statistics.median(without)
        results['oplog_share_of_time'] = statistics.median(shares)

        log(f'(j) verify on {args.verify_docs} documents')
        store = os.path.join(work, 'verify.omgdb')
        subprocess.run([args.omgdb, 'create', store], check=True, capture_output=True)
        path = os.path.join(work, 'verify.jsonl')
        with open(path, 'w') as f:
            for d in make_docs(args.verify_docs, 11):
                f.write(json.dumps(d) + '\n')
        srv = Server(args.omgdb, os.path.join(work, 'verify.stderr'))
        srv.initialize()
        srv.call_tool('import_jsonl', {'path': store, 'collection': 'users', 'file': path})
        t0 = time.perf_counter()
        text = srv.call_tool('verify', {'path': store})
        secs = time.perf_counter() - t0
        srv.close()
        if '"ok":true' not in text.replace(' ', ''):
            raise BenchError(f'verify did not report ok: {text[:300]}')
        results['verify_seconds'] = secs
        results['verify_seconds_per_million'] = secs / args.verify_docs * 1e6
    with open(os.path.join(HERE, 'out', 'oplog.json'), 'w') as f:
        json.dump(results, f, indent=2)
    print(f'op-log: insert_many {results["with_oplog_docs_per_s"]:,.0f} docs/s with it, '
          f'{results["without_oplog_docs_per_s"]:,.0f} without (medians of {args.runs}); the op-log takes '
          f'{results["oplog_share_of_time"] * 100:.1f} % of the time (target < 30 %)')
    print(f'verify: {results["verify_seconds_per_million"]:.2f} s per million documents '
          f'({args.verify_docs:,} documents in {results["verify_seconds"]:.2f} s)')


if __name__ == '__main__':
    main()
