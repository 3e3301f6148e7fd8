#!/usr/bin/env python3
"""Instructions per `tools/call get` on omgdb's own threads, counted by callgrind.

  callgrind_calls.py OMGDB http|stdio

Runs the server under `valgrind --tool=callgrind --separate-threads=yes` twice, with N and 3N
calls on 20,000 documents (HTTP: 4 keep-alive connections of one session, N = 500; stdio: 64
in flight, N = 1,000), and prints (count(3N) - count(N)) / 2N, so start-up, the import and
cache warm-up cancel out. RocksDB's background threads are left out: whether a flush or
compaction of the imported data lands in one run or the other is timing, not cost per call.
The stdio store is imported and reopened once before both runs, so both read the same files.
With --separate-threads the event loop (thread 1, HTTP) is also shown on its own.
Two repeat HTTP runs agreed within 0.1 %; each mode takes a few minutes.
"""
import glob
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import http_bench as hb  # noqa: E402

DOCS = 20000


def thread_totals(prefix):
    """{thread number: instructions} for one callgrind run, background threads left out."""
    out = {}
    for f in glob.glob(prefix + '*-*'):
        text = subprocess.run(['callgrind_annotate', '--inclusive=yes', '--threshold=50', f],
                              capture_output=True, text=True).stdout
        m = re.search(r'([\d,]+) \(100.0%\)\s+PROGRAM TOTALS', text)
        if m and 'BGThread' not in text:
            out[int(f.rsplit('-', 1)[1])] = int(m.group(1).replace(',', ''))
    return out


def make_store(tmp, omgdb):
    store, docs = os.path.join(tmp, 'bench.omgdb'), os.path.join(tmp, 'items.jsonl')
    with open(docs, 'w') as f:
        for k in range(DOCS):
            f.write(json.dumps({'_id': k, 'name': f'item {k}', 'group': k % 100, 'tags': ['a', 'b'],
                                'price': k * 0.25}) + '\n')
    subprocess.run([omgdb, 'create', store], check=True, capture_output=True)
    return store, docs


def http_run(omgdb, tmp, calls_per_conn, out):
    store, docs = make_store(tmp, omgdb)
    env = dict(os.environ, OMGDB_HTTP_TOKEN=hb.TOKEN)
    env.pop('OMGDB_LOG_LEVEL', None)
    p, port = hb.start(['valgrind', '--tool=callgrind', '--separate-threads=yes', f'--callgrind-out-file={out}.%p',
                        omgdb, 'serve', '--unconfined-stores', '--listen', '127.0.0.1:0', '--state-dir', os.path.join(tmp, 'state'),
                        '--max-in-flight', '256'], env=env, log_dir=tmp)
    auth = {'Authorization': f'Bearer {hb.TOKEN}'}
    sid = hb.open_session(port, auth)
    s, status, _, body = hb.http_post(port, {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call', 'params': {
        'name': 'import_jsonl', 'arguments': {'path': store, 'collection': 'items', 'file': docs}}},
        dict(auth, **{'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25'}))
    s.close()
    assert status == 200, body
    bad = []

    def conn(t):
        s = socket.create_connection(('127.0.0.1', port))
        f = s.makefile('rb')
        for i in range(calls_per_conn):
            data = json.dumps({'jsonrpc': '2.0', 'id': t * 1000000 + i, 'method': 'tools/call', 'params': {
                'name': 'get', 'arguments': {'path': store, 'collection': 'items', 'id': (i * 7919 + t) % DOCS}}}).encode()
            s.sendall(f'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n'
                      f'Accept: application/json, text/event-stream\r\nMcp-Session-Id: {sid}\r\n'
                      f'MCP-Protocol-Version: 2025-11-25\r\nAuthorization: Bearer {hb.TOKEN}\r\n'
                      f'Content-Length: {len(data)}\r\n\r\n'.encode() + data)
            status = int(f.readline().split()[1])
            n = 0
            while (line := f.readline()) != b'\r\n':
                k, _, v = line.decode().partition(':')
                n = int(v) if k.lower() == 'content-length' else n
            if status != 200 or b'"isError":false' not in f.read(n):
                bad.append(i)
        s.close()

    threads = [threading.Thread(target=conn, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    hb.stop(p)
    if bad:
        sys.exit(f'{len(bad)} bad replies')


def stdio_store(omgdb, tmp):
    """A store with the documents imported, then opened once more: the WAL it recovers is
    flushed then, so both measured runs read the same files."""
    store, docs = make_store(tmp, omgdb)
    init = json.dumps({'jsonrpc': '2.0', 'id': 0, 'method': 'initialize', 'params': {
        'protocolVersion': '2025-06-18', 'capabilities': {}, 'clientInfo': {'name': 'b', 'version': '1'}}}) + '\n'
    subprocess.run([omgdb, 'mcp'], check=True, capture_output=True, input=(init + json.dumps(
        {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call', 'params': {
            'name': 'import_jsonl', 'arguments': {'path': store, 'collection': 'items', 'file': docs}}}) + '\n').encode())
    subprocess.run([omgdb, 'mcp'], check=True, capture_output=True, input=(init + json.dumps(
        {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call', 'params': {
            'name': 'get', 'arguments': {'path': store, 'collection': 'items', 'id': 1}}}) + '\n').encode())
    return store


def stdio_run(omgdb, store, calls, out):
    p = subprocess.Popen(['valgrind', '--tool=callgrind', '--separate-threads=yes', f'--callgrind-out-file={out}.%p',
                          omgdb, 'mcp'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(m):
        p.stdin.write((json.dumps(m) + '\n').encode())
        p.stdin.flush()
    send({'jsonrpc': '2.0', 'id': 0, 'method': 'initialize', 'params': {
        'protocolVersion': '2025-06-18', 'capabilities': {}, 'clientInfo': {'name': 'b', 'version': '1'}}})
    p.stdout.readline()
    send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
    sent = ok = 0

    def call():
        nonlocal sent
        sent += 1
        send({'jsonrpc': '2.0', 'id': sent, 'method': 'tools/call', 'params': {
            'name': 'get', 'arguments': {'path': store, 'collection': 'items', 'id': (sent * 7919) % DOCS}}})
    for _ in range(min(64, calls)):
        call()
    for _ in range(calls):
        if json.loads(p.stdout.readline()).get('result', {}).get('isError') is False:
            ok += 1
        if sent < calls:
            call()
    p.stdin.close()
    p.wait()
    if ok != calls:
        sys.exit(f'{calls - ok} bad replies')


def main():
    omgdb, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
    n = 500 if mode == 'http' else 1000
    runs = {}
    with tempfile.TemporaryDirectory() as shared:
        store = stdio_store(omgdb, shared) if mode == 'stdio' else None
        for k in (n, 3 * n):
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, 'cg')
                if mode == 'http':
                    http_run(omgdb, tmp, k // 4, out)  # the import stays in the memtable in both runs
                else:
                    stdio_run(omgdb, store, k, out)
                runs[k] = thread_totals(out)
    per_call = (sum(runs[3 * n].values()) - sum(runs[n].values())) / (2 * n)
    line = f'{mode}: {per_call:,.0f} instructions per get on the server\'s own threads'
    if mode == 'http':
        line += f', {(runs[3 * n][1] - runs[n][1]) / (2 * n):,.0f} of them on the event loop'
    print(line)


if __name__ == '__main__':
    main()
