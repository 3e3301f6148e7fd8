#!/usr/bin/env python3
"""Load test: N concurrent MCP clients over Streamable HTTP against a real `omgdb serve`.

Each client is one session on one keep-alive connection: initialize, notifications/initialized,
then `tools/call` in a loop for the whole duration — mostly `get` by _id and `find` with a
filter, and an `insert` now and then. Every call must answer HTTP 200 with a JSON-RPC result
that is not an error result, and every read must return the document it asked for. Prints the
totals; exits 1 on any failed call (or if a client could not keep going).

Usage: load.py OMGDB_BIN [--clients 200] [--seconds 60]
"""
import argparse
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

TOKEN = 'load-test-token-0123456789abcdef'


class Failure(Exception):
    pass


async def post(reader, writer, port, body, session=None):
    data = json.dumps(body).encode()
    head = (f'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\n'
            f'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n'
            f'Content-Length: {len(data)}\r\n')
    if session:
        head += f'Mcp-Session-Id: {session}\r\n'
    writer.write(head.encode() + b'\r\n' + data)
    await writer.drain()
    status_line = await reader.readline()
    if not status_line:
        raise Failure('connection closed by the server')
    status = int(status_line.split()[1])
    headers = {}
    while True:
        line = await reader.readline()
        if line in (b'\r\n', b''):
            break
        k, _, v = line.decode().partition(':')
        headers[k.strip().lower()] = v.strip()
    if 'content-length' in headers:
        payload = await reader.readexactly(int(headers['content-length']))
    elif headers.get('transfer-encoding') == 'chunked':
        payload = b''
        while True:
            size = int((await reader.readline()).strip(), 16)
            if size == 0:
                await reader.readline()
                break
            payload += await reader.readexactly(size)
            await reader.readline()
    else:
        payload = b''
    if headers.get('content-type', '').startswith('text/event-stream'):
        # The response is the last `data:` event that carries an id matching the request.
        messages = [json.loads(m) for m in re.findall(rb'^data: (.*)$', payload, re.M)]
        replies = [m for m in messages if m.get('id') == body.get('id')]
        payload = json.dumps(replies[-1]).encode() if replies else b''
    return status, headers, payload


class Client:
    def __init__(self, n, port, store, stats):
        self.n, self.port, self.store, self.stats = n, port, store, stats
        self.next_id = 1

    async def call(self, reader, writer, session, name, arguments):
        self.next_id += 1
        body = {'jsonrpc': '2.0', 'id': self.next_id, 'method': 'tools/call',
                'params': {'name': name, 'arguments': arguments}}
        status, _, payload = await post(reader, writer, self.port, body, session)
        if status != 200:
            raise Failure(f'{name}: HTTP {status}: {payload[:200]!r}')
        reply = json.loads(payload)
        if 'error' in reply:
            raise Failure(f'{name}: JSON-RPC error {reply["error"]}')
        result = reply['result']
        if result.get('isError'):
            raise Failure(f'{name}: error result {result["content"][0]["text"][:200]}')
        return result['content'][0]['text']

    async def run(self, deadline):
        reader, writer = await asyncio.open_connection('127.0.0.1', self.port)
        try:
            status, headers, payload = await post(reader, writer, self.port, {
                'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                           'clientInfo': {'name': f'load-{self.n}', 'version': '1'}}})
            if status != 200 or 'mcp-session-id' not in headers:
                raise Failure(f'initialize: HTTP {status} {payload[:200]!r}')
            session = headers['mcp-session-id']
            status, _, _ = await post(reader, writer, self.port,
                                      {'jsonrpc': '2.0', 'method': 'notifications/initialized'}, session)
            if status != 202:
                raise Failure(f'notifications/initialized: HTTP {status}')
            i = 0
            while time.monotonic() < deadline:
                i += 1
                key = (self.n * 7919 + i) % 1000
                if i % 50 == 0:
                    await self.call(reader, writer, session, 'insert', {
                        'path': self.store, 'collection': 'writes',
                        'document': {'_id': f'c{self.n}-{i}', 'client': self.n}})
                elif i % 5 == 0:
                    text = await self.call(reader, writer, session, 'find', {
                        'path': self.store, 'collection': 'items', 'filter': {'group': key % 10},
                        'limit': 3})
                    if text.count('"group"') != 3:
                        raise Failure(f'find returned {text[:200]}')
                else:
                    text = await self.call(reader, writer, session, 'get', {
                        'path': self.store, 'collection': 'items', 'id': key})
                    if f'"_id":{key},' not in text.replace(' ', ''):
                        raise Failure(f'get {key} returned {text[:200]}')
                self.stats['calls'] += 1
        except (Failure, OSError, ValueError, KeyError, asyncio.IncompleteReadError) as e:
            self.stats['failed'] += 1
            self.stats['errors'].append(f'client {self.n}: {e}')
        finally:
            writer.close()


async def main_async(args, port, store):
    stats = {'calls': 0, 'failed': 0, 'errors': []}
    deadline = time.monotonic() + args.seconds
    started = time.monotonic()
    await asyncio.gather(*(Client(n, port, store, stats).run(deadline) for n in range(args.clients)))
    return stats, time.monotonic() - started


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('omgdb')
    ap.add_argument('--clients', type=int, default=200)
    ap.add_argument('--seconds', type=float, default=60)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, 'load.omgdb')
        subprocess.run([args.omgdb, 'create', store], check=True, capture_output=True)
        docs = '\n'.join(json.dumps({'_id': k, 'group': k % 10, 'name': f'item {k}'}) for k in range(1000))
        seed = os.path.join(tmp, 'items.jsonl')
        with open(seed, 'w') as f:
            f.write(docs + '\n')
        env = dict(os.environ, OMGDB_HTTP_TOKEN=TOKEN)
        env.pop('OMGDB_LOG_LEVEL', None)
        server = subprocess.Popen(
            [args.omgdb, 'serve', '--unconfined-stores', '--listen', '127.0.0.1:0', '--state-dir', os.path.join(tmp, 'state'),
             # The default session limits must serve every client (issue 16: --max-sessions
             # and --max-sessions-per-token are not raised here).
             '--max-connections', str(args.clients + 64)],
            env=env, stderr=subprocess.PIPE, text=True)
        try:
            port = None
            for line in server.stderr:
                m = re.search(r'http://127\.0\.0\.1:(\d+)/mcp', line)
                if m:
                    port = int(m.group(1))
                    break
            if port is None:
                print('load: the server did not start', file=sys.stderr)
                return 1
            # The daemon logs a line per call: keep reading its stderr so it never blocks on it.
            server_log = []
            threading.Thread(target=lambda: server_log.extend(server.stderr), daemon=True).start()
            # Seed through the server itself (import_jsonl), so the store is owned by it.
            async def seed_items():
                reader, writer = await asyncio.open_connection('127.0.0.1', port)
                c = Client(-1, port, store, {})
                _, h, _ = await post(reader, writer, port, {
                    'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                    'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                               'clientInfo': {'name': 'seed', 'version': '1'}}})
                await c.call(reader, writer, h['mcp-session-id'], 'import_jsonl',
                             {'path': store, 'collection': 'items', 'file': seed})
                writer.close()
            asyncio.run(seed_items())
            stats, elapsed = asyncio.run(main_async(args, port, store))
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        print(f'load: {args.clients} clients, {elapsed:.1f} s, {stats["calls"]} calls '
              f'({stats["calls"] / elapsed:.0f}/s), {stats["failed"]} failed')
        for e in stats['errors'][:10]:
            print('  ' + e)
        if server.returncode not in (0, None):
            print(f'load: the server exited with status {server.returncode}')
            return 1
        return 1 if stats['failed'] or stats['calls'] == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
