"""Helpers for the raw HTTP tests of `omgdb serve`: start a daemon on a port the OS picks,
send requests with http.client or a raw socket, read SSE. Python 3 standard library only.

Every wait is bounded; every address is loopback.
"""
import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import tempfile
import threading
import time
import shutil

BIN = os.environ.get('OMGDB_BIN', '')
TOKEN = 'omgdb-test-token-0123456789abcdef'
SANITIZER = re.compile(r'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: ')
LISTENING = re.compile(r'listening on http://127\.0\.0\.1:(\d+)/mcp')
INIT = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
        'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                   'clientInfo': {'name': 'raw-http-test', 'version': '1'}}}
BOTH = 'application/json, text/event-stream'


class Daemon:
    """One `omgdb serve --listen 127.0.0.1:0` process; its stderr is collected."""

    def __init__(self, *args, token=TOKEN, state_dir=None, expect_start=True, extra_env=None):
        self.tmp = tempfile.mkdtemp(prefix='omgdb-http-')
        self.state_dir = state_dir or os.path.join(self.tmp, 'state')
        env = dict(os.environ)
        env.pop('OMGDB_HTTP_TOKEN', None)
        if token is not None:
            env['OMGDB_HTTP_TOKEN'] = token
        env['OMGDB_LOG_LEVEL'] = 'debug'  # the token must not leak even at debug level
        env.update(extra_env or {})
        argv = [BIN, 'serve', '--unconfined-stores', '--state-dir', self.state_dir, *args]
        if not any(a == '--listen' for a in args):
            argv[2:2] = ['--listen', '127.0.0.1:0']
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, env=env)
        self.lines = []
        self.port = None
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        if expect_start:
            if not self._ready.wait(15) or self.port is None:
                self.stop()
                raise AssertionError('daemon did not start:\n' + self.stderr())

    def _drain(self):
        for raw in self.proc.stderr:
            line = raw.decode('utf-8', 'replace')
            self.lines.append(line)
            m = LISTENING.search(line)
            if m and self.port is None:
                self.port = int(m.group(1))
            if self.port is not None and 'session records in' in line:
                self._ready.set()  # the last line of the start-up banner
        self._ready.set()

    def stderr(self):
        return ''.join(self.lines)

    def wait_exit(self, timeout=15):
        try:
            code = self.proc.wait(timeout)
            self._reader.join(5)  # everything it wrote to stderr is collected
            return code
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            raise AssertionError('daemon did not exit within %s s' % timeout)

    def stop(self, sig=signal.SIGTERM, timeout=15):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.wait_exit(timeout)
        self._reader.join(5)
        return code

    def cleanup(self):
        code = self.stop() if self.proc.poll() is None else self.proc.returncode
        self._reader.join(5)
        shutil.rmtree(self.tmp, ignore_errors=True)
        err = self.stderr()
        # Sanitizer builds report to stderr (leaks at exit included): fail the test on them.
        if SANITIZER.search(err):
            raise AssertionError('sanitizer report from the daemon:\n' + err[-6000:])
        if self.port is not None and code != 0:
            raise AssertionError('daemon exited with status %s:\n%s' % (code, err[-4000:]))


class Reply:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # lowercase names
        self.body = body

    def json(self):
        return json.loads(self.body)

    def events(self):
        return parse_sse(self.body.decode())


def request(d, method='POST', body=None, headers=None, path='/mcp', auth=True, session=None,
            token=TOKEN, raw_body=None):
    conn = http.client.HTTPConnection('127.0.0.1', d.port, timeout=15)
    h = {}
    if auth:
        h['Authorization'] = 'Bearer ' + token
    data = raw_body
    if body is not None:
        data = json.dumps(body).encode()
    if data is not None:
        h['Content-Type'] = 'application/json'
    if session:
        h['Mcp-Session-Id'] = session
    h.update(headers or {})
    h = {k: v for k, v in h.items() if v is not None}
    conn.request(method, path, body=data, headers=h)
    resp = conn.getresponse()
    payload = resp.read()
    headers = {k.lower(): v for k, v in resp.getheaders()}
    conn.close()
    return Reply(resp.status, headers, payload)


def initialize(d, **kw):
    r = request(d, body=INIT, **kw)
    assert r.status == 200, (r.status, r.body)
    sid = r.headers['mcp-session-id']
    n = request(d, body={'jsonrpc': '2.0', 'method': 'notifications/initialized'}, session=sid,
                token=kw.get('token', TOKEN))
    assert n.status == 202, (n.status, n.body)
    return sid


def parse_sse(text):
    """Events as dicts {'id': str|None, 'event': str|None, 'data': parsed JSON}."""
    events = []
    for block in text.replace('\r\n', '\n').split('\n\n'):
        ev = {'id': None, 'event': None, 'data': None}
        data = []
        for line in block.split('\n'):
            if line.startswith('id: '):
                ev['id'] = line[4:]
            elif line.startswith('event: '):
                ev['event'] = line[7:]
            elif line.startswith('data: '):
                data.append(line[6:])
        if data:
            ev['data'] = json.loads('\n'.join(data))
            events.append(ev)
    return events


class RawStream:
    """A raw socket for streamed responses: send one request, read what arrives."""

    def __init__(self, d, method, headers, body=b''):
        self.sock = socket.create_connection(('127.0.0.1', d.port), timeout=10)
        lines = ['%s /mcp HTTP/1.1' % method, 'Host: 127.0.0.1:%d' % d.port]
        lines += ['%s: %s' % kv for kv in headers.items()]
        if body:
            lines.append('Content-Length: %d' % len(body))
        self.sock.sendall(('\r\n'.join(lines) + '\r\n\r\n').encode() + body)
        self.buf = b''

    def read_until(self, needle, timeout=10):
        """Reads until `needle` (bytes) appears or the peer closes; returns everything read."""
        deadline = time.monotonic() + timeout
        while needle not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([self.sock], [], [], left)
            if not ready:
                break
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self.buf += chunk
        return self.buf

    def close(self):
        self.sock.close()


def auth_headers(**extra):
    h = {'Authorization': 'Bearer ' + TOKEN}
    h.update(extra)
    return h
