"""Shared helpers of the `omgdb mcp --http` and HTTPS tests: processes whose stderr is
drained (the daemon logs a line per call), MCP over http.client, bounded waits only."""
import http.client
import json
import os
import queue
import re
import subprocess
import threading

BIN = os.environ.get('OMGDB_BIN', '')
TOKEN = 'mcp-http-test-token-0123456789abcdef'
INIT = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
        'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                   'clientInfo': {'name': 'mcp-http-test', 'version': '1'}}}
INITIALIZED = {'jsonrpc': '2.0', 'method': 'notifications/initialized'}


def env_with_token(token=TOKEN):
    env = dict(os.environ)
    env.pop('OMGDB_LOG_LEVEL', None)
    env.pop('OMGDB_HTTP_TOKEN', None)
    if token is not None:
        env['OMGDB_HTTP_TOKEN'] = token
    return env


class Proc:
    """A daemon process; stderr is collected by a thread, `url` is the first listening URL."""

    def __init__(self, argv, env, stdin=subprocess.DEVNULL, expect_url=True):
        self.proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE if stdin != subprocess.DEVNULL
                                     else subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        self.lines = []
        self.url = None
        self._url_seen = threading.Event()
        self.out = queue.Queue()
        self.raw_out = []
        threading.Thread(target=self._drain_err, daemon=True).start()
        if self.proc.stdout is not None:
            threading.Thread(target=self._drain_out, daemon=True).start()
        if expect_url:
            if not self._url_seen.wait(20) or not self.url:
                self.kill()
                raise AssertionError('no listening line:\n' + self.stderr())

    def _drain_err(self):
        for raw in self.proc.stderr:
            line = raw.decode('utf-8', 'replace')
            self.lines.append(line)
            m = re.search(r'listening on (https?://\S+/mcp)', line)
            if m and not self.url:
                self.url = m.group(1)
                self._url_seen.set()
        self._url_seen.set()

    def _drain_out(self):
        for raw in self.proc.stdout:
            self.raw_out.append(raw)
            self.out.put(raw)

    @property
    def port(self):
        return int(re.search(r':(\d+)/mcp$', self.url).group(1))

    def stderr(self):
        return ''.join(self.lines)

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + '\n').encode())
        self.proc.stdin.flush()

    def receive(self, timeout=15):
        return json.loads(self.out.get(timeout=timeout))

    def call(self, message, timeout=15):
        """Sends a request on stdin and returns its response (skipping notifications)."""
        self.send(message)
        while True:
            m = self.receive(timeout)
            if m.get('id') == message['id']:
                return m

    def wait(self, timeout=20):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError('process did not exit within %s s:\n%s' % (timeout, self.stderr()))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


class Client:
    """One MCP session over HTTP(S) with a bearer token."""

    def __init__(self, port, token=TOKEN, tls_context=None, host='127.0.0.1'):
        self.port, self.token, self.tls, self.host = port, token, tls_context, host
        self.session = None
        self.next_id = 100

    def connection(self):
        if self.tls is not None:
            return http.client.HTTPSConnection(self.host, self.port, timeout=15, context=self.tls)
        return http.client.HTTPConnection(self.host, self.port, timeout=15)

    def post(self, message, token=True, accept='application/json, text/event-stream'):
        conn = self.connection()
        headers = {'Content-Type': 'application/json', 'Accept': accept}
        if token:
            headers['Authorization'] = 'Bearer ' + self.token
        if self.session:
            headers['Mcp-Session-Id'] = self.session
        conn.request('POST', '/mcp', body=json.dumps(message).encode(), headers=headers)
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body

    def initialize(self):
        status, headers, body = self.post(INIT)
        assert status == 200, (status, body)
        self.session = headers['mcp-session-id']
        assert self.post(INITIALIZED)[0] == 202
        return json.loads(body)

    def request(self, method, params=None):
        self.next_id += 1
        message = {'jsonrpc': '2.0', 'id': self.next_id, 'method': method, 'params': params or {}}
        status, headers, body = self.post(message)
        assert status == 200, (status, body)
        if headers.get('content-type', '').startswith('text/event-stream'):
            for line in body.decode().splitlines():
                if line.startswith('data:'):
                    m = json.loads(line[5:])
                    if m.get('id') == self.next_id:
                        return m
            raise AssertionError('no response in the stream: %r' % body)
        return json.loads(body)

    def tool(self, name, arguments):
        return self.request('tools/call', {'name': name, 'arguments': arguments})


def text_of(response):
    assert 'result' in response, response
    return ''.join(c.get('text', '') for c in response['result']['content'])
