"""`omgdb mcp --http ADDR`: one process serving MCP on stdio and Streamable HTTP from one
server (one dispatcher, one worker pool, one store registry)."""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from common import BIN, INIT, INITIALIZED, TOKEN, Client, Proc, env_with_token, text_of


def start(tmp, *extra, token=TOKEN, expect_url=True):
    return Proc([BIN, 'mcp', '--unconfined-stores', '--http', '127.0.0.1:0', *extra], env_with_token(token),
                stdin=subprocess.PIPE, expect_url=expect_url)


class BothTransports(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='omgdb-mcp-http-')
        self.store = os.path.join(self.tmp, 'store')
        subprocess.run([BIN, 'create', self.store], check=True, capture_output=True, timeout=30)
        self.p = start(self.tmp)
        init = self.p.call(INIT)
        self.assertIn('result', init)
        self.p.send(INITIALIZED)
        self.web = Client(self.p.port)
        self.web.initialize()

    def tearDown(self):
        self.p.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def stdio_tool(self, i, name, arguments):
        return self.p.call({'jsonrpc': '2.0', 'id': i, 'method': 'tools/call',
                            'params': {'name': name, 'arguments': arguments}})

    def test_a_write_on_one_transport_is_visible_on_the_other_at_once(self):
        r = self.stdio_tool(2, 'insert', {'path': self.store, 'collection': 'c',
                                          'document': {'_id': 'from-stdio', 'n': 1}})
        self.assertFalse(r['result'].get('isError'), r)
        seen = self.web.tool('get', {'path': self.store, 'collection': 'c', 'id': 'from-stdio'})
        self.assertFalse(seen['result'].get('isError'), seen)
        self.assertEqual(json.loads(text_of(seen))['n'], 1)

        r = self.web.tool('insert', {'path': self.store, 'collection': 'c', 'document': {'_id': 'from-http', 'n': 2}})
        self.assertFalse(r['result'].get('isError'), r)
        seen = self.stdio_tool(3, 'find', {'path': self.store, 'collection': 'c', 'filter': {}})
        ids = sorted(json.loads(line)['_id'] for line in text_of(seen).splitlines() if line.startswith('{'))
        self.assertEqual(ids, ['from-http', 'from-stdio'])

    def test_both_transports_list_the_same_tools(self):
        over_stdio = self.p.call({'jsonrpc': '2.0', 'id': 4, 'method': 'tools/list'})['result']['tools']
        over_http = self.web.request('tools/list')['result']['tools']
        self.assertGreater(len(over_stdio), 10)
        self.assertEqual(over_stdio, over_http)

    def test_the_http_side_requires_the_token(self):
        anonymous = Client(self.p.port)
        status, headers, _ = anonymous.post(INIT, token=False)
        self.assertEqual(status, 401)
        self.assertIn('Bearer', headers.get('www-authenticate', ''))
        wrong = Client(self.p.port, token='not-the-token-0123456789abcdef')
        self.assertEqual(wrong.post(INIT)[0], 401)

    def test_stdout_carries_only_mcp_messages_and_eof_stops_everything(self):
        self.p.call({'jsonrpc': '2.0', 'id': 5, 'method': 'ping'})
        self.web.request('ping')
        port = self.p.port
        self.p.proc.stdin.close()
        self.assertEqual(self.p.wait(20), 0, self.p.stderr())
        for raw in self.p.raw_out:
            message = json.loads(raw)
            self.assertEqual(message.get('jsonrpc'), '2.0', raw)
        self.assertEqual(len(self.p.raw_out), 2)  # initialize and ping, nothing else
        with self.assertRaises(OSError):
            socket.create_connection(('127.0.0.1', port), timeout=2).close()
        self.assertNotIn(TOKEN, self.p.stderr())

    def test_eof_waits_for_a_running_stdio_call_and_ends_an_open_http_stream(self):
        # A GET stream is open on the HTTP side; stdin ends right after a call: the call is
        # answered, the stream is ended by the shutdown and the process exits 0.
        conn = self.web.connection()
        conn.request('GET', '/mcp', headers={'Authorization': 'Bearer ' + TOKEN, 'Accept': 'text/event-stream',
                                             'Mcp-Session-Id': self.web.session})
        stream = conn.getresponse()
        self.assertEqual(stream.status, 200)
        self.p.send({'jsonrpc': '2.0', 'id': 6, 'method': 'tools/call',
                     'params': {'name': 'insert_many', 'arguments': {
                         'path': self.store, 'collection': 'big',
                         'documents': [{'i': i, 'pad': 'x' * 200} for i in range(2000)]}}})
        self.p.proc.stdin.close()
        self.assertEqual(self.p.wait(30), 0, self.p.stderr())
        answers = [json.loads(raw) for raw in self.p.raw_out]
        self.assertEqual(answers[-1]['id'], 6)
        self.assertFalse(answers[-1]['result'].get('isError'), answers[-1])
        stream.read()  # ends instead of hanging: the listener closed it
        conn.close()

    def test_sigterm_stops_both_and_exits_zero(self):
        self.p.proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.p.wait(20), 0, self.p.stderr())


class Refusals(unittest.TestCase):
    def run_refused(self, *argv, token=TOKEN):
        return subprocess.run([BIN, 'mcp', *argv], env=env_with_token(token), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=20)

    def test_without_a_token_it_does_not_start(self):
        r = self.run_refused('--http', '127.0.0.1:0', token=None)
        self.assertEqual(r.returncode, 2)
        self.assertIn('no bearer token', r.stderr)
        self.assertEqual(r.stdout, '')

    def test_a_non_loopback_address_is_refused(self):
        r = self.run_refused('--http', '0.0.0.0:0')
        self.assertEqual(r.returncode, 2)
        self.assertIn('not a loopback address', r.stderr)

    def test_http_cannot_be_combined_with_via_or_standalone(self):
        r = self.run_refused('--http', '127.0.0.1:0', '--via', 'http://127.0.0.1:1/mcp')
        self.assertEqual(r.returncode, 2)
        self.assertIn('cannot be combined', r.stderr)
        r = self.run_refused('--standalone', '--http', '127.0.0.1:0')
        self.assertEqual(r.returncode, 2)


if __name__ == '__main__':
    unittest.main(verbosity=2)
