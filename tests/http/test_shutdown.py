"""Issue 29, items 3, 11 and 12, against the real daemon: SIGTERM ends the process within
--shutdown-deadline whatever a worker is doing (calls that poll their flag stop at once and
answer; calls that ignore it are abandoned) and keeps every acknowledged write; one bearer
token cannot occupy more than its share of the workers by opening several sessions; results
over HTTP carry no absolute server path; a repeated single-valued header is refused.

`test_ignores_cancellation` (a --conformance-fixtures tool) sleeps 30 s without polling its
flag: a worker stuck in a loop. Every wait is bounded; loopback only.
"""
import hashlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import unittest

from http_helpers import BIN, BOTH, TOKEN, Daemon, RawStream, initialize, request
from test_call_limits import SLOW, call_body, slow_store, tool_text

STUCK = 'test_ignores_cancellation'
ALPHA = 'omgdb-alpha-token-0123456789abcdef'
BETA = 'omgdb-beta-token-0123456789abcdef'


def report(what, value):
    print('\n  measured: %s: %s' % (what, value), file=sys.stderr)


def start_call(d, sid, rid, name, args, token=TOKEN):
    """POSTs a tools/call on a raw connection and returns it, still waiting for its answer."""
    body = json.dumps(call_body(rid, name, args)).encode()
    headers = {'Authorization': 'Bearer ' + token, 'Mcp-Session-Id': sid, 'Content-Type': 'application/json',
               'Accept': BOTH}
    return RawStream(d, 'POST', headers, body)


def new_store(d, name='store'):
    path = os.path.join(d.tmp, name)
    subprocess.run([BIN, 'create', path], check=True, capture_output=True, timeout=60)
    return path


def sigterm_and_time(d, timeout=20):
    started = time.monotonic()
    d.proc.send_signal(signal.SIGTERM)
    code = d.wait_exit(timeout)
    return code, time.monotonic() - started


class Sigterm(unittest.TestCase):
    def test_sigterm_ends_the_daemon_within_the_deadline_while_two_calls_ignore_their_flag(self):
        d = Daemon('--conformance-fixtures', '--shutdown-deadline', '2', '--workers', '3', '--session-workers', '3')
        restarted = None
        try:
            path = new_store(d)
            sid = initialize(d)
            r = request(d, body=call_body(2, 'insert', {'path': path, 'collection': 'c', 'document': {'_id': 'kept'}}),
                        session=sid)
            text, is_error = tool_text(r)
            self.assertFalse(is_error, text)  # acknowledged before the SIGTERM
            stuck = [start_call(d, initialize(d), 10 + i, STUCK, {}) for i in range(2)]
            time.sleep(0.5)  # both are on a worker
            code, took = sigterm_and_time(d)
            report('SIGTERM to exit, two calls ignoring their flag, --shutdown-deadline 2', '%.2f s' % took)
            self.assertEqual(code, 0, d.stderr()[-3000:])
            self.assertLess(took, 2 + 1.5, d.stderr()[-3000:])
            for s in stuck:
                # The waiting POSTs were answered (the shutdown error), not left hanging.
                self.assertIn(b'shutting down', s.read_until(b'shutting down', 2))
                s.close()
            self.assertIn('ignore their cancellation', d.stderr())
            restarted = Daemon()
            sid = initialize(restarted)
            r = request(restarted, body=call_body(3, 'get', {'path': path, 'collection': 'c', 'id': 'kept'}),
                        session=sid)
            text, is_error = tool_text(r)
            self.assertFalse(is_error, text)
            self.assertEqual(json.loads(text)['_id'], 'kept')
        finally:
            if restarted:
                restarted.cleanup()
            d.cleanup()

    def test_sigterm_stops_calls_that_poll_their_flag_at_once_and_they_answer_so(self):
        path = slow_store()
        d = Daemon('--shutdown-deadline', '10', '--workers', '3', '--session-workers', '3')
        try:
            slow = [start_call(d, initialize(d), 20 + i, 'count_documents',
                               {'path': path, 'collection': 'c', 'filter': SLOW}) for i in range(2)]
            time.sleep(0.5)
            code, took = sigterm_and_time(d)
            report('SIGTERM to exit, two slow counts polling their flag', '%.2f s' % took)
            self.assertEqual(code, 0)
            self.assertLess(took, 3, d.stderr()[-3000:])  # not the 10 s deadline
            for s in slow:
                reply = s.read_until(b'shutting down', 2)
                self.assertIn(b'`count_documents` stopped: the server is shutting down', reply)
                s.close()
        finally:
            d.cleanup()


class TokenShare(unittest.TestCase):
    def test_a_token_with_several_sessions_leaves_a_worker_for_another_token(self):
        tmp = tempfile.mkdtemp(prefix='omgdb-share-')
        cfg = os.path.join(tmp, 'omgdb.toml')
        with open(cfg, 'w') as f:
            for name, token in (('alpha', ALPHA), ('beta', BETA)):
                f.write('[[http.tokens]]\nname = "%s"\nsha256 = "%s"\nscope = "read-write"\n'
                        % (name, hashlib.sha256(token.encode()).hexdigest()))
        slow = slow_store()
        d = Daemon('--config', cfg, '--workers', '2', '--shutdown-deadline', '1', token=None)
        stuck = []
        try:
            path = new_store(d)
            subprocess.run([BIN, 'insert', path, 'c', '{"_id": 1, "v": "x"}'], check=True, capture_output=True)
            beta = initialize(d, token=BETA)
            find = call_body(5, 'find', {'path': path, 'collection': 'c', 'filter': {'_id': 1}})

            def beta_find():
                started = time.monotonic()
                r = request(d, body=find, session=beta, token=BETA)
                text, is_error = tool_text(r)
                self.assertFalse(is_error, text)
                return time.monotonic() - started

            beta_find()  # opens the store
            for i in range(3):  # three sessions of one token, each with a long count (tens of seconds)
                stuck.append(start_call(d, initialize(d, token=ALPHA), 30 + i, 'count_documents',
                                        {'path': slow, 'collection': 'c', 'filter': SLOW}, token=ALPHA))
            time.sleep(0.5)
            latencies = [beta_find() for _ in range(10)]
            report("other token's find while one token's 3 sessions hold calls (ms, median/max)",
                   '%.1f / %.1f' % (statistics.median(latencies) * 1000, max(latencies) * 1000))
            self.assertLess(max(latencies), 0.1, latencies)
        finally:
            for s in stuck:
                s.close()
            d.cleanup()
            shutil.rmtree(tmp, ignore_errors=True)


def raw_request(d, lines, body):
    s = socket.create_connection(('127.0.0.1', d.port), timeout=10)
    head = ['POST /mcp HTTP/1.1'] + lines + ['Connection: close', 'Content-Length: %d' % len(body), '', '']
    s.sendall('\r\n'.join(head).encode() + body)
    reply = b''
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        reply += chunk
    s.close()
    return int(reply.split(b' ', 2)[1]), reply


class RepeatedHeaders(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = Daemon()

    @classmethod
    def tearDownClass(cls):
        cls.d.cleanup()

    def test_a_repeated_mcp_header_is_400_naming_it(self):
        d = self.d
        meta = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {}}
        body = json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
                           'params': {'name': 'get', 'arguments': {}, '_meta': meta}}).encode()
        base = ['Host: 127.0.0.1:%d' % d.port, 'Authorization: Bearer ' + TOKEN, 'Content-Type: application/json',
                'Accept: application/json, text/event-stream', 'Mcp-Method: tools/call']
        version = 'MCP-Protocol-Version: 2026-07-28'
        cases = {
            'Mcp-Name': base + [version, 'Mcp-Name: get', 'Mcp-Name: insert'],
            'MCP-Protocol-Version': base + [version, 'mcp-protocol-version: 2025-11-25', 'Mcp-Name: get'],
            'Mcp-Method': base + [version, 'Mcp-Method: tools/list', 'Mcp-Name: get'],
            'Content-Type': base + [version, 'Content-Type: text/plain', 'Mcp-Name: get'],
        }
        for name, lines in cases.items():
            status, reply = raw_request(d, lines, body)
            self.assertEqual(status, 400, (name, reply))
            self.assertIn(('the %s header is repeated' % name).encode(), reply, name)
        status, reply = raw_request(d, base + [version, 'Mcp-Name: get'], body)
        self.assertEqual(status, 200, reply)  # the same request with each header once


class ServerPaths(unittest.TestCase):
    def test_results_over_http_carry_no_absolute_server_path(self):
        tmp = tempfile.mkdtemp(prefix='omgdb-paths-')
        root = os.path.join(tmp, 'root')
        models = os.path.join(tmp, 'models-here')
        os.makedirs(root)
        os.makedirs(models)
        d = Daemon('--store-root', root, extra_env={'OMGDB_MODELS_DIR': models})
        try:
            store = os.path.join(root, 'notes.omgdb')
            subprocess.run([BIN, 'create', store], check=True, capture_output=True)
            subprocess.run([BIN, 'insert', store, 'notes', '{"_id": 1, "text": "hello world"}'], check=True,
                           capture_output=True)
            sid = initialize(d)
            calls = [
                ('inspect', {'path': 'notes.omgdb'}),
                ('describe', {'path': 'notes.omgdb'}),
                ('define_search_index', {'path': 'notes.omgdb', 'definition': {
                    'collection': 'notes', 'name': 'text', 'fields': ['text']}}),
                ('search_index_status', {'path': 'notes.omgdb', 'collection': 'notes'}),
                ('verify', {'path': 'notes.omgdb'}),
                ('vsync', {'path': 'notes.omgdb', 'collection': 'notes', 'field': 'text', 'model': 'absent'}),
            ]
            needles = {tmp, os.path.realpath(tmp), root, os.path.realpath(root), models}
            for i, (name, args) in enumerate(calls):
                r = request(d, body=call_body(40 + i, name, args), session=sid)
                self.assertEqual(r.status, 200, r.body)
                result = json.dumps(r.json()['result'])
                for needle in needles:
                    self.assertNotIn(needle, result, (name, result))
                    self.assertNotIn(json.dumps(needle)[1:-1], result, (name, result))
                if name == 'inspect':
                    self.assertEqual(r.json()['result']['structuredContent']['path'], 'notes.omgdb')
                if name == 'vsync':
                    self.assertTrue(r.json()['result']['isError'])
                    self.assertIn("the server's models directory", result)
        finally:
            d.cleanup()
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    unittest.main()
