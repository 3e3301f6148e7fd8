#!/usr/bin/env python3
"""`tools/call get` over Streamable HTTP: stateless 2026-07-28 requests against legacy
(2025-11-25 session) requests, on one `omgdb serve`, in the same run (issue 21).

64 connections in flight (wrk + bench/http/get.lua, BENCH_MODERN=1 for the modern era).
The two eras alternate (legacy, modern, legacy, modern, …) so that both see the same machine
load; each round is measured for `--seconds`. Reported per era: calls/s and the server's CPU
time per call (utime+stime of all its threads, from /proc), the median over rounds; and the
ratios modern / legacy. A stateless request should cost no more than a session request.

Usage: bench/http/modern_vs_legacy.py OMGDB [--docs N] [--seconds S] [--rounds R]
Writes bench/out/http_modern.json. Needs wrk (make bench-http installs it).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from http_bench import TOKEN, http_post, measure_http, open_session, rss_mib, start, stop  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('omgdb')
    ap.add_argument('--docs', type=int, default=100000)
    ap.add_argument('--seconds', type=int, default=5)
    ap.add_argument('--rounds', type=int, default=3)
    args = ap.parse_args()
    if not shutil.which('wrk'):
        sys.exit('modern_vs_legacy: wrk is required (make bench-http installs it)')
    out_dir = os.path.join(os.path.dirname(HERE), 'out')
    os.makedirs(out_dir, exist_ok=True)
    results = {'docs': args.docs, 'seconds': args.seconds, 'rounds': args.rounds, 'legacy': [], 'modern': []}
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        store = os.path.join(tmp, 'bench.omgdb')
        docs_file = os.path.join(tmp, 'items.jsonl')
        with open(docs_file, 'w') as f:
            for k in range(args.docs):
                f.write(json.dumps({'_id': k, 'name': f'item {k}', 'group': k % 100, 'tags': ['a', 'b'],
                                    'price': k * 0.25}) + '\n')
        subprocess.run([args.omgdb, 'create', store], check=True, capture_output=True)
        env = dict(os.environ, OMGDB_HTTP_TOKEN=TOKEN)
        env.pop('OMGDB_LOG_LEVEL', None)
        omgdb, port = start([args.omgdb, 'serve', '--unconfined-stores', '--listen', '127.0.0.1:0', '--state-dir',
                             os.path.join(tmp, 'state'), '--max-in-flight', '256', '--max-sessions', '128'],
                            env=env, log_dir=tmp)
        try:
            auth = {'Authorization': f'Bearer {TOKEN}'}
            sid = open_session(port, auth)
            s, status, _, body = http_post(port, {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call', 'params': {
                'name': 'import_jsonl', 'arguments': {'path': store, 'collection': 'items', 'file': docs_file}}},
                dict(auth, **{'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25'}))
            s.close()
            if status != 200 or json.loads(body)['result'].get('isError'):
                raise RuntimeError(f'import_jsonl failed: {body[:300]!r}')
            common = {'BENCH_DOCS': str(args.docs), 'BENCH_STORE': store, 'BENCH_TOKEN': TOKEN}
            print('tools/call get over HTTP, 64 in flight: legacy session vs stateless 2026-07-28', file=sys.stderr)
            for _ in range(args.rounds):
                results['legacy'].append(measure_http('legacy', omgdb, port, args.seconds,
                                                      dict(common, BENCH_SESSION=sid)))
                results['modern'].append(measure_http('modern', omgdb, port, args.seconds,
                                                      dict(common, BENCH_MODERN='1', BENCH_SESSION='')))
            results['rss_after_mib'] = rss_mib(omgdb.pid)
        finally:
            stop(omgdb)
    med = {era: {k: statistics.median(r[k] for r in results[era]) for k in ('calls_per_s', 'server_cpu_us_per_call',
                                                                          'p50_ms', 'p99_ms')}
           for era in ('legacy', 'modern')}
    results['median'] = med
    results['ratios'] = {
        'cpu_per_call_modern_over_legacy': med['modern']['server_cpu_us_per_call'] / med['legacy']['server_cpu_us_per_call'],
        'calls_per_s_modern_over_legacy': med['modern']['calls_per_s'] / med['legacy']['calls_per_s'],
    }
    with open(os.path.join(out_dir, 'http_modern.json'), 'w') as f:
        json.dump(results, f, indent=2)
    for era in ('legacy', 'modern'):
        m = med[era]
        print(f'{era:7s} {m["calls_per_s"]:8.0f} calls/s  server CPU {m["server_cpu_us_per_call"]:.1f} µs/call  '
              f'p50 {m["p50_ms"]:.2f} ms  p99 {m["p99_ms"]:.2f} ms')
    r = results['ratios']
    print(f'modern / legacy: server CPU per call {r["cpu_per_call_modern_over_legacy"]:.3f} (target ≤ 1.0), '
          f'calls/s {r["calls_per_s_modern_over_legacy"]:.3f}')


if __name__ == '__main__':
    main()
