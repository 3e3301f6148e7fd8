#!/usr/bin/env python3
"""HTTP and stdio benchmarks of omgdb against baselines measured in the same run.

  (f) `tools/call get` over Streamable HTTP, 64 connections in flight (wrk + bench/http/get.lua):
      omgdb serve vs a minimal MCP server written with the official TypeScript SDK answering the
      same calls (bench/http/sdk_server.mjs), and vs a bare Boost.Beast server that only parses
      and echoes the JSON body (bench/http/beast_echo.cpp). Calls/s, p50/p99, and the server's
      CPU time per call (utime+stime from /proc, all threads).
  (g) the same `get` calls over stdio (64 in flight from a Python driver): omgdb mcp vs the SDK
      stdio server, server CPU time per call.
  (h) RSS of `omgdb serve` idle and with 64 sessions each holding an open SSE stream.

Usage: http_bench.py OMGDB BEAST_ECHO [--docs N] [--seconds S]  (run by `make bench-http`)
Writes bench/out/http.json.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOKEN = 'bench-token-0123456789abcdefghij'
TICK = os.sysconf('SC_CLK_TCK')


def cpu_seconds(pid):
    fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mib(pid):
    for line in open(f'/proc/{pid}/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024
    return 0.0


RUNNING = []


def start(cmd, env=None, cwd=None, log_dir=None):
    """Starts a server whose stderr goes to a file (as a daemon's log would: a journal or a
    file, not a pipe that this process must drain — reading ~40,000 log lines a second in
    Python would take CPU from the two servers under test); returns it and its port."""
    log = tempfile.NamedTemporaryFile(mode='w+', prefix='server-', suffix='.log', dir=log_dir, delete=False)
    p = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=log, text=True)
    RUNNING.append(p)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with open(log.name) as f:
            m = re.search(r'listening on (?:http://127\.0\.0\.1:)?(\d+)', f.read())
        if m:
            return p, int(m.group(1))
        if p.poll() is not None:
            break
        time.sleep(0.05)
    with open(log.name) as f:
        raise RuntimeError(f'{cmd[0]} did not start: {f.read()[-2000:]}')


def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()


def http_post(port, body, headers):
    s = socket.create_connection(('127.0.0.1', port))
    data = json.dumps(body).encode()
    head = f'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n' \
           f'Accept: application/json, text/event-stream\r\nContent-Length: {len(data)}\r\n'
    for k, v in headers.items():
        head += f'{k}: {v}\r\n'
    s.sendall(head.encode() + b'\r\n' + data)
    f = s.makefile('rb')
    status = int(f.readline().split()[1])
    hdrs = {}
    while True:
        line = f.readline()
        if line in (b'\r\n', b''):
            break
        k, _, v = line.decode().partition(':')
        hdrs[k.strip().lower()] = v.strip()
    n = int(hdrs.get('content-length', 0))
    payload = f.read(n) if n else b''
    return s, status, hdrs, payload


def open_session(port, headers):
    init = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
            'params': {'protocolVersion': '2025-11-25', 'capabilities': {}, 'clientInfo': {'name': 'bench', 'version': '1'}}}
    s, status, hdrs, _ = http_post(port, init, headers)
    s.close()
    assert status == 200, status
    sid = hdrs['mcp-session-id']
    s, status, _, _ = http_post(port, {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
                                dict(headers, **{'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25'}))
    s.close()
    return sid


def wrk(port, seconds, env_extra):
    env = dict(os.environ, **env_extra)
    out = subprocess.run(['wrk', '-t2', '-c64', f'-d{seconds}s', '--timeout', '30s', '-s',
                          os.path.join(HERE, 'http', 'get.lua'), f'http://127.0.0.1:{port}/mcp'],
                         env=env, stdout=subprocess.PIPE, text=True, check=True).stdout
    return json.loads([l for l in out.splitlines() if l.startswith('{')][-1])


def measure_http(name, proc, port, seconds, env_extra):
    wrk(port, 2, env_extra)  # warm-up
    before = cpu_seconds(proc.pid)
    r = wrk(port, seconds, env_extra)
    cpu = cpu_seconds(proc.pid) - before
    r['calls_per_s'] = r['requests'] / r['seconds']
    r['server_cpu_us_per_call'] = cpu / max(r['requests'], 1) * 1e6
    print(f'  {name:10s} {r["calls_per_s"]:9.0f} calls/s  p50 {r["p50_ms"]:.2f} ms  p99 {r["p99_ms"]:.2f} ms  '
          f'server CPU {r["server_cpu_us_per_call"]:.1f} µs/call  bad {r["bad"]}', file=sys.stderr)
    if r['bad'] or r['errors_socket']:
        raise RuntimeError(f'{name}: {r["bad"]} bad replies, {r["errors_socket"]} socket errors')
    return r


def stdio_run(cmd, store, docs, seconds, cwd=None):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
    def send(m):
        p.stdin.write((json.dumps(m) + '\n').encode())
        p.stdin.flush()
    send({'jsonrpc': '2.0', 'id': 0, 'method': 'initialize',
          'params': {'protocolVersion': '2025-06-18', 'capabilities': {}, 'clientInfo': {'name': 'b', 'version': '1'}}})
    p.stdout.readline()
    send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
    counter = [0]
    def call():
        counter[0] += 1
        i = counter[0]
        send({'jsonrpc': '2.0', 'id': i, 'method': 'tools/call', 'params': {
            'name': 'get', 'arguments': {'path': store, 'collection': 'items', 'id': (i * 7919) % docs}}})
    for _ in range(64):
        call()
    done = bad = 0
    before = cpu_seconds(p.pid)
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        reply = json.loads(p.stdout.readline())
        if 'result' not in reply or reply['result'].get('isError'):
            bad += 1
            if bad == 1:
                print(f'  first bad reply: {json.dumps(reply)[:300]}', file=sys.stderr)
        done += 1
        call()
    elapsed = time.monotonic() - t0
    cpu = cpu_seconds(p.pid) - before
    p.stdin.close()
    p.kill()
    p.wait()
    return {'calls_per_s': done / elapsed, 'server_cpu_us_per_call': cpu / max(done, 1) * 1e6, 'bad': bad}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('omgdb')
    ap.add_argument('beast_echo')
    ap.add_argument('--docs', type=int, default=100000)
    ap.add_argument('--seconds', type=int, default=10)
    args = ap.parse_args()
    for tool in ('wrk', 'node', 'npm'):
        if not shutil.which(tool):
            sys.exit(f'bench-http: {tool} is required (make bench-http installs wrk)')
    if not os.path.isdir(os.path.join(HERE, 'http', 'node_modules')):
        subprocess.run(['npm', 'ci', '--no-audit', '--no-fund'], cwd=os.path.join(HERE, 'http'), check=True)
    results = {'docs': args.docs, 'seconds': args.seconds}
    os.makedirs(os.path.join(HERE, 'out'), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.join(HERE, 'out')) as tmp:
        store = os.path.join(tmp, 'bench.omgdb')
        docs_file = os.path.join(tmp, 'items.jsonl')
        with open(docs_file, 'w') as f:
            for k in range(args.docs):
                f.write(json.dumps({'_id': k, 'name': f'item {k}', 'group': k % 100, 'tags': ['a', 'b'],
                                    'price': k * 0.25}) + '\n')
        subprocess.run([args.omgdb, 'create', store], check=True, capture_output=True)
        env = dict(os.environ, OMGDB_HTTP_TOKEN=TOKEN)
        env.pop('OMGDB_LOG_LEVEL', None)

        print('(f) tools/call get over HTTP, 64 in flight', file=sys.stderr)
        omgdb, port = start([args.omgdb, 'serve', '--unconfined-stores', '--listen', '127.0.0.1:0', '--state-dir', os.path.join(tmp, 'state'),
                             '--max-in-flight', '256', '--max-sessions', '128'], env=env, log_dir=tmp)
        auth = {'Authorization': f'Bearer {TOKEN}'}
        sid = open_session(port, auth)
        s, status, _, body = http_post(port, {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call', 'params': {
            'name': 'import_jsonl', 'arguments': {'path': store, 'collection': 'items', 'file': docs_file}}},
            dict(auth, **{'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25'}))
        s.close()
        if status != 200 or json.loads(body)['result'].get('isError'):
            raise RuntimeError(f'import_jsonl failed: {body[:300]!r}')
        results['rss_idle_mib'] = rss_mib(omgdb.pid)
        common = {'BENCH_DOCS': str(args.docs), 'BENCH_STORE': store}
        results['omgdb_http'] = measure_http('omgdb', omgdb, port, args.seconds,
                                             dict(common, BENCH_SESSION=sid, BENCH_TOKEN=TOKEN))

        print('(h) RSS with 64 open SSE sessions', file=sys.stderr)
        streams = []
        for _ in range(64):
            sid = open_session(port, auth)
            s = socket.create_connection(('127.0.0.1', port))
            s.sendall(f'GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\n'
                      f'Accept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n'.encode())
            assert s.recv(4096).startswith(b'HTTP/1.1 200'), 'SSE stream refused'
            streams.append(s)
        time.sleep(1)
        results['rss_64_sse_sessions_mib'] = rss_mib(omgdb.pid)
        print(f'  RSS {results["rss_idle_mib"]:.1f} MiB before the HTTP run; '
              f'{results["rss_64_sse_sessions_mib"]:.1f} MiB with 64 SSE sessions open', file=sys.stderr)
        for s in streams:
            s.close()
        stop(omgdb)

        sdk, port = start(['node', 'sdk_server.mjs', 'http', '0', docs_file], cwd=os.path.join(HERE, 'http'), log_dir=tmp)
        sid = open_session(port, {})
        results['sdk_http'] = measure_http('ts-sdk', sdk, port, args.seconds, dict(common, BENCH_SESSION=sid))
        stop(sdk)

        echo, port = start([args.beast_echo, '0'], log_dir=tmp)
        results['beast_echo'] = measure_http('beast-echo', echo, port, args.seconds, common)
        stop(echo)

        print('(g) tools/call get over stdio, 64 in flight', file=sys.stderr)
        results['omgdb_stdio'] = stdio_run([args.omgdb, 'mcp'], store, args.docs, args.seconds)
        results['sdk_stdio'] = stdio_run(['node', 'sdk_server.mjs', 'stdio', docs_file], store, args.docs,
                                         args.seconds, cwd=os.path.join(HERE, 'http'))
        for k in ('omgdb_stdio', 'sdk_stdio'):
            r = results[k]
            print(f'  {k:12s} {r["calls_per_s"]:9.0f} calls/s  server CPU {r["server_cpu_us_per_call"]:.1f} µs/call',
                  file=sys.stderr)

    o, sdk_r, e = results['omgdb_http'], results['sdk_http'], results['beast_echo']
    results['ratios'] = {
        'http_cpu_per_call_omgdb_over_sdk': o['server_cpu_us_per_call'] / sdk_r['server_cpu_us_per_call'],
        'http_throughput_omgdb_over_beast_echo': o['calls_per_s'] / e['calls_per_s'],
        'http_throughput_omgdb_over_sdk': o['calls_per_s'] / sdk_r['calls_per_s'],
        'stdio_cpu_per_call_omgdb_over_sdk': results['omgdb_stdio']['server_cpu_us_per_call'] /
                                             results['sdk_stdio']['server_cpu_us_per_call'],
    }
    with open(os.path.join(HERE, 'out', 'http.json'), 'w') as f:
        json.dump(results, f, indent=2)
    r = results['ratios']
    print(f'HTTP: omgdb server CPU per call = {r["http_cpu_per_call_omgdb_over_sdk"]:.3f} × the SDK server\'s '
          f'(target ≤ 0.05); throughput = {r["http_throughput_omgdb_over_beast_echo"]:.2f} × the bare Beast echo '
          f'(target ≥ 0.5), {r["http_throughput_omgdb_over_sdk"]:.1f} × the SDK server')
    print(f'stdio: omgdb server CPU per call = {r["stdio_cpu_per_call_omgdb_over_sdk"]:.3f} × the SDK server\'s '
          f'(target ≤ 0.1)')
    print(f'RSS: {results["rss_64_sse_sessions_mib"]:.1f} MiB with 64 open SSE sessions')
    if results['omgdb_stdio']['bad'] or results['sdk_stdio']['bad']:
        sys.exit('bench-http: error replies over stdio')


if __name__ == '__main__':
    try:
        main()
    finally:
        for proc in RUNNING:  # never leave a server behind, whatever failed
            if proc.poll() is None:
                proc.kill()
