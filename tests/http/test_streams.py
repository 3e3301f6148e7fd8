"""SSE: when a POST answers with a stream, the GET stream (409, keep-alive, headers),
resumption with Last-Event-ID after a dropped connection, records kept across a restart,
and graceful SIGTERM."""
import json
import os
import re
import signal
import subprocess
import time
import unittest

from http_helpers import (BIN, BOTH, TOKEN, Daemon, RawStream, auth_headers, initialize, request)

D = None
STORE = None


def setUpModule():
    global D, STORE
    D = Daemon('--sse-keepalive', '1')
    STORE = os.path.join(D.tmp, 'app.omgdb')
    subprocess.run([BIN, 'create', STORE], check=True, capture_output=True, timeout=30)
    subprocess.run([BIN, 'insert', STORE, 'users', '{"name":"ana","age":30}'], check=True,
                   capture_output=True, timeout=30)


def tearDownModule():
    D.cleanup()


def call(name, args, rid=10, progress=None):
    params = {'name': name, 'arguments': args}
    if progress is not None:
        params['_meta'] = {'progressToken': progress}
    return {'jsonrpc': '2.0', 'id': rid, 'method': 'tools/call', 'params': params}


def assert_sse_headers(test, headers):
    test.assertEqual(headers['content-type'], 'text/event-stream')
    test.assertEqual(headers['cache-control'], 'no-cache, no-transform')
    test.assertEqual(headers['x-accel-buffering'], 'no')
    test.assertNotIn('content-encoding', headers)


class PostStreams(unittest.TestCase):
    def test_a_call_with_a_progress_token_streams_progress_then_the_result(self):
        sid = initialize(D)
        r = request(D, body=call('find', {'path': STORE, 'collection': 'users'}, progress='tok-1'),
                    session=sid, headers={'Accept': BOTH})
        self.assertEqual(r.status, 200)
        assert_sse_headers(self, r.headers)
        events = r.events()
        self.assertGreaterEqual(len(events), 2)
        for e in events:
            self.assertEqual(e['event'], 'message')
            self.assertRegex(e['id'], r'^\d+$')
        ids = [int(e['id']) for e in events]
        self.assertEqual(ids, sorted(set(ids)))
        self.assertEqual(events[0]['data']['method'], 'notifications/progress')
        self.assertEqual(events[0]['data']['params']['progressToken'], 'tok-1')
        last = events[-1]['data']
        self.assertEqual(last['id'], 10)
        self.assertIn('ana', last['result']['content'][0]['text'])
        self.assertFalse(r.body.decode().splitlines()[0].startswith('data: \n'))  # no empty priming event

    def test_a_call_without_notifications_is_plain_json(self):
        sid = initialize(D)
        r = request(D, body=call('find', {'path': STORE, 'collection': 'users'}), session=sid,
                    headers={'Accept': BOTH})
        self.assertEqual(r.headers['content-type'], 'application/json')
        self.assertEqual(r.json()['id'], 10)

    def test_a_client_that_accepts_only_json_gets_json_even_with_progress(self):
        sid = initialize(D)
        r = request(D, body=call('find', {'path': STORE, 'collection': 'users'}, progress=5), session=sid,
                    headers={'Accept': 'application/json'})
        self.assertEqual(r.headers['content-type'], 'application/json')
        self.assertEqual(r.json()['id'], 10)

    def test_a_client_that_accepts_only_sse_gets_sse(self):
        sid = initialize(D)
        r = request(D, body={'jsonrpc': '2.0', 'id': 3, 'method': 'ping'}, session=sid,
                    headers={'Accept': 'text/event-stream'})
        assert_sse_headers(self, r.headers)
        self.assertEqual(r.events()[-1]['data'], {'jsonrpc': '2.0', 'id': 3, 'result': {}})

    def test_debug_logging_makes_a_call_stream_its_log_notifications(self):
        sid = initialize(D)
        r = request(D, body={'jsonrpc': '2.0', 'id': 1, 'method': 'logging/setLevel', 'params': {'level': 'debug'}},
                    session=sid)
        self.assertEqual(r.json()['result'], {})
        r = request(D, body=call('find', {'path': STORE, 'collection': 'users'}), session=sid,
                    headers={'Accept': BOTH})
        assert_sse_headers(self, r.headers)
        methods = [e['data'].get('method') for e in r.events()]
        self.assertIn('notifications/message', methods)
        self.assertEqual(r.events()[-1]['data']['id'], 10)


class GetStream(unittest.TestCase):
    def test_get_opens_the_sse_stream_and_a_second_one_is_409(self):
        sid = initialize(D)
        s = RawStream(D, 'GET', auth_headers(**{'Accept': 'text/event-stream', 'Mcp-Session-Id': sid}))
        try:
            head = s.read_until(b'\r\n\r\n').decode()
            self.assertTrue(head.startswith('HTTP/1.1 200'), head)
            self.assertIn('Content-Type: text/event-stream', head)
            self.assertIn('Cache-Control: no-cache, no-transform', head)
            self.assertIn('X-Accel-Buffering: no', head)
            second = request(D, 'GET', session=sid, headers={'Accept': 'text/event-stream'})
            self.assertEqual(second.status, 409)
            # Idle streams get keep-alive comments (--sse-keepalive 1).
            self.assertIn(b': keep-alive', s.read_until(b': keep-alive', timeout=5))
        finally:
            s.close()
        # Once the first stream is gone (noticed at its next keep-alive), a new GET succeeds.
        deadline = time.monotonic() + 2  # the hang-up is noticed at once
        status = 409
        while status == 409 and time.monotonic() < deadline:
            time.sleep(0.5)
            g = RawStream(D, 'GET', auth_headers(**{'Accept': 'text/event-stream', 'Mcp-Session-Id': sid}))
            status = int(g.read_until(b'\r\n').split(b' ')[1])
            g.close()
        self.assertEqual(status, 200)

    def test_delete_ends_an_open_get_stream(self):
        sid = initialize(D)
        s = RawStream(D, 'GET', auth_headers(**{'Accept': 'text/event-stream', 'Mcp-Session-Id': sid}))
        try:
            s.read_until(b'\r\n\r\n')
            self.assertEqual(request(D, 'DELETE', session=sid).status, 200)
            self.assertIn(b'0\r\n\r\n', s.read_until(b'0\r\n\r\n', timeout=5))
        finally:
            s.close()


class Resumption(unittest.TestCase):
    def test_a_dropped_post_stream_is_resumed_with_last_event_id(self):
        sid = initialize(D)
        body = json.dumps(call('find', {'path': STORE, 'collection': 'users'}, rid='r-1', progress='p')).encode()
        s = RawStream(D, 'POST', auth_headers(**{'Accept': BOTH, 'Content-Type': 'application/json',
                                                  'Mcp-Session-Id': sid}), body)
        first = re.search(rb'id: (\d+)\n', s.read_until(b'id: '))
        seen = s.read_until(b'\n\n')
        s.close()  # the connection drops after the first event
        self.assertIsNotNone(first, seen)
        r = request(D, 'GET', session=sid, headers={'Accept': 'text/event-stream',
                                                    'Last-Event-ID': first.group(1).decode()})
        self.assertEqual(r.status, 200)
        events = r.events()
        self.assertTrue(events, r.body)
        self.assertTrue(all(int(e['id']) > int(first.group(1)) for e in events))
        self.assertEqual(events[-1]['data']['id'], 'r-1')
        self.assertIn('result', events[-1]['data'])

    def test_an_unknown_last_event_id_opens_the_get_stream(self):
        sid = initialize(D)
        s = RawStream(D, 'GET', auth_headers(**{'Accept': 'text/event-stream', 'Mcp-Session-Id': sid,
                                                 'Last-Event-ID': '12345'}))
        try:
            self.assertTrue(s.read_until(b'\r\n\r\n').startswith(b'HTTP/1.1 200'))
        finally:
            s.close()


class Lifecycle(unittest.TestCase):
    def test_a_restarted_daemon_still_accepts_live_sessions(self):
        d1 = Daemon()
        try:
            sid = initialize(d1)
            gone = initialize(d1)
            self.assertEqual(request(d1, 'DELETE', session=gone).status, 200)
            r = request(d1, body={'jsonrpc': '2.0', 'id': 1, 'method': 'logging/setLevel',
                                  'params': {'level': 'debug'}}, session=sid)
            self.assertEqual(r.status, 200)
            self.assertEqual(d1.stop(), 0)
            mode = os.stat(os.path.join(d1.state_dir, 'http-sessions.json')).st_mode & 0o777
            self.assertEqual(mode, 0o600)
            d2 = Daemon(state_dir=d1.state_dir)
            try:
                r = request(d2, body={'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'}, session=sid)
                self.assertEqual(r.status, 200)
                self.assertTrue(r.json()['result']['tools'])
                # The log level survived: a call streams its debug log notification.
                r = request(d2, body=call('find', {'path': STORE, 'collection': 'users'}), session=sid,
                            headers={'Accept': BOTH})
                self.assertIn('notifications/message', [e['data'].get('method') for e in r.events()])
                self.assertEqual(request(d2, body={'jsonrpc': '2.0', 'id': 3, 'method': 'ping'},
                                         session=gone).status, 404)
            finally:
                d2.cleanup()
        finally:
            d1.cleanup()

    def test_sigterm_ends_open_streams_and_exits_promptly(self):
        d = Daemon()
        try:
            sid = initialize(d)
            s = RawStream(d, 'GET', auth_headers(**{'Accept': 'text/event-stream', 'Mcp-Session-Id': sid}))
            s.read_until(b'\r\n\r\n')
            started = time.monotonic()
            self.assertEqual(d.stop(signal.SIGTERM), 0)
            self.assertLess(time.monotonic() - started, 5)
            self.assertIn(b'0\r\n\r\n', s.read_until(b'0\r\n\r\n', timeout=2))
            s.close()
            self.assertIn('shutting down', d.stderr())
        finally:
            d.cleanup()



class GracefulShutdown(unittest.TestCase):
    """SIGTERM while a slow call (import_jsonl of a big file) is running."""

    def slow_call_during_sigterm(self, *args, lines=30000):
        import threading
        d = Daemon(*args)
        try:
            store = os.path.join(d.tmp, 'imp.omgdb')
            subprocess.run([BIN, 'create', store], check=True, capture_output=True, timeout=30)
            data = os.path.join(d.tmp, 'big.jsonl')
            with open(data, 'w') as f:
                for i in range(lines):
                    f.write('{"i":%d,"name":"user%d","tags":["a","b"]}\n' % (i, i))
            sid = initialize(d)
            result = {}

            def post():
                result['reply'] = request(d, body=call('import_jsonl', {'path': store, 'collection': 'c',
                                                                       'file': data}), session=sid)
            t = threading.Thread(target=post)
            t.start()
            time.sleep(0.3)
            stopping = time.monotonic()
            code = d.stop(signal.SIGTERM, timeout=60)
            self.took = time.monotonic() - stopping
            t.join(60)
            self.assertFalse(t.is_alive())
            return code, result['reply'], d.stderr()
        finally:
            d.cleanup()

    def test_a_running_call_is_stopped_at_once_and_answers_what_it_committed(self):
        # SIGTERM sets the call's flag (reason `shutdown`): the import stops at its next batch
        # instead of running on for the deadline, and says where to resume.
        code, reply, err = self.slow_call_during_sigterm(lines=600000)
        self.assertEqual(code, 0)
        self.assertLess(self.took, 5)  # the 10 s deadline was not used up
        self.assertEqual(reply.status, 200)
        result = reply.json()['result']
        self.assertTrue(result['isError'], result)
        self.assertIn('`import_jsonl` stopped: the server is shutting down', result['content'][0]['text'])
        self.assertIn('shutting down', err)

    def test_past_the_deadline_a_running_call_gets_an_error_and_the_daemon_exits(self):
        # Big enough to be still running 0.3 s after it started, even in a release build.
        code, reply, err = self.slow_call_during_sigterm('--shutdown-deadline', '0', lines=600000)
        self.assertEqual(code, 0)
        self.assertEqual(reply.status, 200)
        self.assertIn('shutting down', reply.json()['error']['message'])


if __name__ == '__main__':
    unittest.main()
