#!/usr/bin/env python3
"""`omgdb mcp --via URL`: a stdio client talking to a running `omgdb serve` through the bridge.

Usage: test_via.py /path/to/omgdb   (python3 -m unittest style output)
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

BIN = None
TOKEN = 'via-test-token-0123456789abcdef'


class Daemon:
    def __init__(self, tmp, *extra):
        env = dict(os.environ, OMGDB_HTTP_TOKEN=TOKEN)
        env.pop('OMGDB_LOG_LEVEL', None)
        self.proc = subprocess.Popen([BIN, 'serve', '--unconfined-stores', '--listen', '127.0.0.1:0', '--state-dir',
                                      os.path.join(tmp, 'state'), *extra],
                                     env=env, stderr=subprocess.PIPE, text=True)
        self.url = None
        for line in self.proc.stderr:
            m = re.search(r'(http://127\.0\.0\.1:\d+/mcp)', line)
            if m:
                self.url = m.group(1)
                break
        assert self.url, 'daemon did not start'
        # The daemon logs a line per call: keep reading its stderr so it never blocks on it.
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=20)


def bridge(url, messages, token=TOKEN, extra=(), timeout=30):
    """Runs the bridge with `messages` on stdin; returns (stdout lines parsed, stderr, status)."""
    env = dict(os.environ)
    env.pop('OMGDB_LOG_LEVEL', None)
    if token is None:
        env.pop('OMGDB_HTTP_TOKEN', None)
    else:
        env['OMGDB_HTTP_TOKEN'] = token
    stdin = ''.join(json.dumps(m) + '\n' for m in messages)
    p = subprocess.run([BIN, 'mcp', '--via', url, *extra], input=stdin, capture_output=True, text=True,
                       env=env, timeout=timeout)
    lines = [json.loads(l) for l in p.stdout.splitlines()]  # stdout is only JSON-RPC messages
    return lines, p.stderr, p.returncode


INIT = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
        'params': {'protocolVersion': '2025-11-25', 'capabilities': {}, 'clientInfo': {'name': 't', 'version': '1'}}}
INITIALIZED = {'jsonrpc': '2.0', 'method': 'notifications/initialized'}


def call(i, name, args, meta=None):
    params = {'name': name, 'arguments': args}
    if meta:
        params['_meta'] = meta
    return {'jsonrpc': '2.0', 'id': i, 'method': 'tools/call', 'params': params}


def by_id(lines, i):
    found = [l for l in lines if l.get('id') == i]
    assert len(found) == 1, f'expected one reply to {i}, got {lines}'
    return found[0]


class Via(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.store = os.path.join(cls.tmp.name, 's.omgdb')
        subprocess.run([BIN, 'create', cls.store], check=True, capture_output=True)
        cls.daemon = Daemon(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        cls.tmp.cleanup()

    def test_a_stdio_client_initializes_lists_and_calls_tools_through_the_daemon(self):
        lines, err, status = bridge(self.daemon.url, [
            INIT, INITIALIZED, {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'},
            call(3, 'insert', {'path': self.store, 'collection': 'c', 'document': {'_id': 'via', 'n': 1}})])
        self.assertEqual(status, 0, err)
        self.assertEqual(by_id(lines, 1)['result']['serverInfo']['name'], 'omgdb')
        names = [t['name'] for t in by_id(lines, 2)['result']['tools']]
        self.assertIn('insert', names)
        self.assertNotIn('drop_collection', names)  # the daemon's read-write ceiling applies
        self.assertFalse(by_id(lines, 3)['result'].get('isError', False), lines)
        # A second bridge (a second agent) sees the first one's write: one daemon, one store.
        lines, err, status = bridge(self.daemon.url, [
            INIT, INITIALIZED, call(2, 'get', {'path': self.store, 'collection': 'c', 'id': 'via'})])
        self.assertIn('"n":1', by_id(lines, 2)['result']['content'][0]['text'].replace(' ', ''))

    def test_a_modern_2026_07_28_client_goes_through_statelessly_with_the_revision_headers(self):
        meta = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {}}
        lines, err, status = bridge(self.daemon.url, [
            {'jsonrpc': '2.0', 'id': 1, 'method': 'server/discover', 'params': {'_meta': meta}},
            {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call',
             'params': {'name': 'count_documents', 'arguments': {'path': self.store, 'collection': 'c'},
                        '_meta': meta}},
            {'jsonrpc': '2.0', 'id': 3, 'method': 'ping', 'params': {'_meta': meta}}])
        self.assertEqual(status, 0, err)
        self.assertIn('2026-07-28', by_id(lines, 1)['result']['supportedVersions'])
        res = by_id(lines, 2)['result']
        self.assertEqual(res['resultType'], 'complete')
        self.assertIn('count', res['structuredContent'])
        self.assertEqual(by_id(lines, 3)['error']['code'], -32601)  # the daemon's 404, forwarded

    def test_progress_notifications_reach_the_stdio_client_before_the_result(self):
        docs = ''.join(json.dumps({'_id': i}) + '\n' for i in range(3000))
        path = os.path.join(self.tmp.name, 'p.jsonl')
        with open(path, 'w') as f:
            f.write(docs)
        lines, err, status = bridge(self.daemon.url, [
            INIT, INITIALIZED,
            call(2, 'import_jsonl', {'path': self.store, 'collection': 'p', 'file': path}, {'progressToken': 'tok'})])
        self.assertEqual(status, 0, err)
        progress = [i for i, l in enumerate(lines) if l.get('method') == 'notifications/progress']
        result = [i for i, l in enumerate(lines) if l.get('id') == 2]
        self.assertTrue(progress, lines)
        self.assertLess(max(progress), result[0])
        self.assertEqual(lines[progress[0]]['params']['progressToken'], 'tok')

    def test_a_wrong_token_becomes_an_error_that_names_the_variable(self):
        lines, err, status = bridge(self.daemon.url, [INIT], token='wrong-token-0123456789abcdef')
        self.assertEqual(status, 0)
        self.assertIn('OMGDB_HTTP_TOKEN', by_id(lines, 1)['error']['message'])
        self.assertIn('401', by_id(lines, 1)['error']['message'])

    def test_an_unreachable_daemon_becomes_an_error_per_request(self):
        port = int(self.daemon.url.split(':')[2].split('/')[0])
        dead = f'http://127.0.0.1:{1 if port != 1 else 2}/mcp'
        lines, err, status = bridge(dead, [INIT, INITIALIZED, {'jsonrpc': '2.0', 'id': 2, 'method': 'ping'}])
        self.assertEqual(status, 0)
        self.assertEqual(len(lines), 2)  # the notification gets no reply
        for i in (1, 2):
            self.assertIn('cannot reach the omgdb daemon', by_id(lines, i)['error']['message'])

    def test_malformed_json_gets_the_daemons_parse_error(self):
        env = dict(os.environ, OMGDB_HTTP_TOKEN=TOKEN)
        p = subprocess.run([BIN, 'mcp', '--via', self.daemon.url], input='{"jsonrpc": \n', capture_output=True,
                           text=True, env=env, timeout=30)
        reply = json.loads(p.stdout.splitlines()[0])
        self.assertEqual(reply['error']['code'], -32700)

    def test_scope_and_other_schemes_are_refused_before_anything_runs(self):
        p = subprocess.run([BIN, 'mcp', '--via', self.daemon.url, '--scope', 'read'], capture_output=True,
                           text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn('narrower scope', p.stderr)
        p = subprocess.run([BIN, 'mcp', '--via', 'ftp://example.com/mcp'], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn('only http:// and https://', p.stderr)
        self.assertEqual(p.stdout, '')

    def test_the_bridge_ends_its_daemon_session_at_end_of_input(self):
        def saved_sessions(kill_bridge):
            with tempfile.TemporaryDirectory() as tmp:
                d = Daemon(tmp)
                env = dict(os.environ, OMGDB_HTTP_TOKEN=TOKEN)
                b = subprocess.Popen([BIN, 'mcp', '--via', d.url], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=env)
                b.stdin.write(json.dumps(INIT) + '\n' + json.dumps(INITIALIZED) + '\n')
                b.stdin.flush()
                self.assertEqual(json.loads(b.stdout.readline())['id'], 1)
                if kill_bridge:
                    b.kill()  # no end of input: the session stays
                else:
                    b.stdin.close()
                b.wait(timeout=20)
                b.stdout.close()
                if not kill_bridge:
                    b.stdin = None
                d.stop()  # SIGTERM: the daemon saves its live sessions
                with open(os.path.join(tmp, 'state', 'http-sessions.json')) as f:
                    return json.load(f)['sessions']
        self.assertEqual(len(saved_sessions(kill_bridge=True)), 1)
        self.assertEqual(saved_sessions(kill_bridge=False), [])

if __name__ == '__main__':
    BIN = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
