"""Issue 16, items 1 and 13, against the real daemon: the per-call deadline, cancellation when
the HTTP client goes away (connection closed, session deleted), the per-session share of the
worker pool, and store errors that show a confined client its own paths.

A slow read is a count whose regex backtracks a lot on every one of 200,000 documents, yet
stays under the regex match limit: tens of seconds of work without a deadline. Each test
asserts what another client observes (an answer within a bound generous for CI), never
micro-timings. Loopback only; every wait bounded.
"""
import json
import os
import subprocess
import tempfile
import time
import unittest

from http_helpers import BIN, BOTH, Daemon, RawStream, auth_headers, initialize, request

DOCS = 200_000
SLOW = {'r': {'$regex': '^(a+)+$'}}
_store_dir = None


def slow_store():
    """One store with DOCS documents whose `r` makes SLOW backtrack (built once, by the CLI)."""
    global _store_dir
    if _store_dir is None:
        _store_dir = tempfile.mkdtemp(prefix='omgdb-slow-')
        path = os.path.join(_store_dir, 'slow.omgdb')
        subprocess.run([BIN, 'create', path], check=True, capture_output=True, timeout=60)
        lines = os.path.join(_store_dir, 'docs.jsonl')
        with open(lines, 'w') as f:
            for i in range(DOCS):
                f.write('{"_id":%d,"r":"%s!"}\n' % (i, 'a' * 15))
        subprocess.run([BIN, 'import', path, 'c', lines, '--batch-size', '10000'], check=True,
                       capture_output=True, timeout=300)
        subprocess.run([BIN, 'insert', path, 'small', '{"_id":1}'], check=True, capture_output=True, timeout=60)
    return os.path.join(_store_dir, 'slow.omgdb')


def call_body(rid, name, args):
    return {'jsonrpc': '2.0', 'id': rid, 'method': 'tools/call', 'params': {'name': name, 'arguments': args}}


def tool_text(reply):
    assert reply.status == 200, (reply.status, reply.body)
    result = reply.json()['result']
    return result['content'][0]['text'], result['isError']


def start_slow(d, sid, rid, path):
    """POSTs the slow count on a raw connection and returns it (still waiting for the answer)."""
    body = json.dumps(call_body(rid, 'count_documents', {'path': path, 'collection': 'c', 'filter': SLOW})).encode()
    return RawStream(d, 'POST', auth_headers(**{'Mcp-Session-Id': sid, 'Content-Type': 'application/json',
                                                'Accept': BOTH}), body)


def quick_count(d, sid, path, rid=50):
    """A call that needs a worker (count_documents is not a quick tool): its latency in seconds."""
    started = time.monotonic()
    r = request(d, body=call_body(rid, 'count_documents', {'path': path, 'collection': 'small', 'filter': {'_id': 1}}),
                session=sid, headers={'Accept': BOTH})
    text, is_error = tool_text(r)
    assert not is_error, text
    return time.monotonic() - started


class CallDeadline(unittest.TestCase):
    def test_a_read_past_the_call_deadline_answers_a_limit_error_naming_the_deadline(self):
        path = slow_store()
        d = Daemon('--call-timeout', '1500')
        try:
            sid = initialize(d)
            started = time.monotonic()
            r = request(d, body=call_body(2, 'count_documents', {'path': path, 'collection': 'c', 'filter': SLOW}),
                        session=sid, headers={'Accept': BOTH})
            took = time.monotonic() - started
            text, is_error = tool_text(r)
            self.assertTrue(is_error)
            self.assertTrue(text.startswith('Error: `count_documents` exceeded the call deadline of 1500 ms '
                                            '(set with --call-timeout / [limits] call_timeout_ms)'), text)
            self.assertGreaterEqual(took, 1.4)
            self.assertLess(took, 10)
        finally:
            d.cleanup()


class ClientGone(unittest.TestCase):
    def one_worker_daemon(self):
        # One worker, no deadline: only the client's going away can free the worker.
        return Daemon('--workers', '1', '--call-timeout', '0')

    def test_closing_the_connection_of_a_running_read_frees_its_worker(self):
        path = slow_store()
        d = self.one_worker_daemon()
        try:
            slow_sid, other_sid = initialize(d), initialize(d)
            quick_count(d, other_sid, path)  # the store is open and warm
            s = start_slow(d, slow_sid, 2, path)
            time.sleep(0.5)  # the count is running on the only worker
            s.close()
            self.assertLess(quick_count(d, other_sid, path), 5.0)
        finally:
            d.cleanup()

    def test_deleting_the_session_of_a_running_read_frees_its_worker(self):
        path = slow_store()
        d = self.one_worker_daemon()
        try:
            slow_sid, other_sid = initialize(d), initialize(d)
            quick_count(d, other_sid, path)
            s = start_slow(d, slow_sid, 2, path)
            time.sleep(0.5)
            r = request(d, method='DELETE', session=slow_sid)
            self.assertIn(r.status, (200, 204))
            self.assertLess(quick_count(d, other_sid, path), 5.0)
            s.close()
        finally:
            d.cleanup()


class WorkerShare(unittest.TestCase):
    def test_a_second_session_of_the_same_token_gets_no_share_of_its_own(self):
        # Issue 29 #3: the share is the token's. Three workers, a share of two: one session's
        # two slow counts use the token's whole share, so its other session's call waits for
        # them although a worker is free, and runs once they are cancelled. (Another token's
        # calls take the free worker: test_shutdown.TokenShare.)
        path = slow_store()
        d = Daemon('--workers', '3', '--call-timeout', '0')
        try:
            flood_sid, other_sid = initialize(d), initialize(d)
            quick_count(d, other_sid, path)
            streams = [start_slow(d, flood_sid, rid, path) for rid in (2, 3)]
            time.sleep(0.5)
            body = json.dumps(call_body(60, 'count_documents', {'path': path, 'collection': 'small',
                                                                'filter': {'_id': 1}})).encode()
            waiting = RawStream(d, 'POST', auth_headers(**{'Mcp-Session-Id': other_sid,
                                                           'Content-Type': 'application/json', 'Accept': BOTH}), body)
            self.assertNotIn(b'"result"', waiting.read_until(b'"result"', 1.5))  # queued behind its own token
            request(d, method='DELETE', session=flood_sid)  # cancels the flood
            self.assertIn(b'"result"', waiting.read_until(b'"result"', 5))
            for s in streams + [waiting]:
                s.close()
        finally:
            d.cleanup()


class ConfinedPaths(unittest.TestCase):
    def test_a_store_error_shows_the_path_as_the_client_gave_it_not_the_server_path(self):
        root = tempfile.mkdtemp(prefix='omgdb-root-')
        d = Daemon('--store-root', root)
        try:
            sid = initialize(d)
            r = request(d, body=call_body(2, 'find', {'path': 'team/missing.omgdb', 'collection': 'c'}),
                        session=sid, headers={'Accept': BOTH})
            text, is_error = tool_text(r)
            self.assertTrue(is_error)
            self.assertIn('team/missing.omgdb', text)
            self.assertNotIn(root, text)
            self.assertNotIn(os.path.realpath(root), text)
            r = request(d, body=call_body(3, 'find', {'path': '/etc/elsewhere.omgdb', 'collection': 'c'}),
                        session=sid, headers={'Accept': BOTH})
            text, is_error = tool_text(r)
            self.assertTrue(is_error)
            self.assertIn('/etc/elsewhere.omgdb', text)  # its own path, as given
            self.assertNotIn(root, text)
        finally:
            d.cleanup()


if __name__ == '__main__':
    unittest.main()
