"""Connection slots and HTTP framing under attack (issue 16, items 2 and 11): idle keep-alive
connections and slowloris heads cannot take every slot, and malformed or unsupported framing is
refused with a reply. Each attack is bounded (a handful of loopback connections, seconds) and
each test shows that another client is still served, within a stated latency.

docs/limits.md lists the bounds these tests exercise."""
import json
import socket
import threading
import time
import unittest

from http_helpers import INIT, TOKEN, Daemon, RawStream, auth_headers, initialize, request

SLOTS = 4            # --max-connections for the slot tests
HEAD_TIMEOUT = 5     # http_options::head_timeout (seconds)
SERVED_WITHIN = 3.0  # seconds: how soon another client is answered during an attack
PING = {'jsonrpc': '2.0', 'id': 1, 'method': 'ping'}


def connect(d):
    return socket.create_connection(('127.0.0.1', d.port), timeout=10)


def closed_by_peer(s, timeout):
    """True when the server closes `s` (EOF or reset) within `timeout` seconds."""
    s.settimeout(timeout)
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def read_reply(s, timeout=10):
    """Everything the server sends before it closes `s`."""
    s.settimeout(timeout)
    data = b''
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    return data


def timed_ping(d):
    """Initializes a session and pings it on fresh connections; returns the seconds taken."""
    start = time.monotonic()
    sid = initialize(d)
    r = request(d, body=PING, session=sid)
    assert r.status == 200, (r.status, r.body)
    return time.monotonic() - start


class Slots(unittest.TestCase):
    def setUp(self):
        self.d = Daemon('--max-connections', str(SLOTS))
        self.socks = []

    def tearDown(self):
        for s in self.socks:
            s.close()
        self.d.cleanup()

    def test_idle_keep_alive_connections_give_way_to_a_new_client_longest_idle_first(self):
        # Each connection makes one authenticated request and then stays open, idle.
        for _ in range(SLOTS):
            s = connect(self.d)
            body = json.dumps(INIT).encode()
            s.sendall(('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n'
                       'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n'
                       'Content-Length: %d\r\n\r\n' % (self.d.port, TOKEN, len(body))).encode() + body)
            s.settimeout(10)
            self.assertIn(b' 200 ', s.recv(65536)[:20])
            self.socks.append(s)
            time.sleep(0.05)  # a distinct idle age each
        took = timed_ping(self.d)
        self.assertLess(took, SERVED_WITHIN)
        # The oldest idle connection was the one closed to make room.
        self.assertTrue(closed_by_peer(self.socks[0], 2))

    def test_slowloris_heads_lose_their_slot_and_others_are_served(self):
        stop = threading.Event()
        head = ('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: ' % self.d.port).encode()
        closed = []

        def drip(s):
            # One byte every 3 s: never completes its head.
            for i in range(len(head)):
                if stop.wait(0 if i == 0 else 3):
                    return
                try:
                    s.sendall(head[i:i + 1])
                except OSError:
                    closed.append(time.monotonic())
                    return

        started = time.monotonic()
        threads = []
        for _ in range(SLOTS * 2):
            s = connect(self.d)
            self.socks.append(s)
            t = threading.Thread(target=drip, args=(s,), daemon=True)
            t.start()
            threads.append(t)
        time.sleep(0.5)
        try:
            self.assertLess(timed_ping(self.d), SERVED_WITHIN)
            # Every dripping connection is closed by the head timeout at the latest.
            for s in self.socks:
                self.assertTrue(closed_by_peer(s, HEAD_TIMEOUT + 3 - (time.monotonic() - started)))
            self.assertLessEqual(time.monotonic() - started, HEAD_TIMEOUT + 3)
        finally:
            stop.set()
            for t in threads:
                t.join(5)

    def test_a_connection_that_never_authenticates_is_closed_after_the_head_timeout(self):
        s = connect(self.d)
        self.socks.append(s)
        s.sendall(('GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n' % self.d.port).encode())
        s.settimeout(5)
        self.assertIn(b' 401 ', s.recv(65536)[:20])
        started = time.monotonic()
        self.assertTrue(closed_by_peer(s, HEAD_TIMEOUT + 2))
        self.assertLess(time.monotonic() - started, HEAD_TIMEOUT + 2)

    def test_connections_busy_for_authenticated_clients_are_kept_and_a_new_one_is_refused(self):
        streams = []
        try:
            for _ in range(SLOTS):
                sid = initialize(self.d)
                st = RawStream(self.d, 'GET', auth_headers(**{'Mcp-Session-Id': sid, 'Accept': 'text/event-stream'}))
                self.assertIn(b' 200 ', st.read_until(b'\r\n\r\n')[:20])
                streams.append(st)
            time.sleep(0.3)  # the initialize connections, closed by the client, are gone
            s = connect(self.d)
            self.socks.append(s)
            reply = read_reply(s)
            self.assertIn(b' 503 ', reply[:20], reply)
            for st in streams:  # no stream was closed to make room
                st.sock.setblocking(False)
                try:
                    self.assertNotEqual(st.sock.recv(65536), b'')
                except BlockingIOError:
                    pass
        finally:
            for st in streams:
                st.close()


def raw(d, head_lines, body=b''):
    """Sends exactly these head lines and body; returns the status and the whole reply."""
    s = connect(d)
    s.sendall(('\r\n'.join(['POST /mcp HTTP/1.1', 'Host: 127.0.0.1:%d' % d.port,
                            'Authorization: Bearer ' + TOKEN, 'Content-Type: application/json',
                            'Accept: application/json, text/event-stream'] + head_lines)
               + '\r\n\r\n').encode() + body)
    reply = read_reply(s)
    s.close()
    status = int(reply.split(b' ', 2)[1]) if reply.startswith(b'HTTP/1.1 ') else None
    return status, reply


class Framing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = Daemon()
        cls.sid = initialize(cls.d)
        cls.ping = json.dumps({'jsonrpc': '2.0', 'id': 7, 'method': 'ping'}).encode()

    @classmethod
    def tearDownClass(cls):
        cls.d.cleanup()

    def session(self):
        return 'Mcp-Session-Id: ' + self.sid

    def assert_refused(self, status, reply, code):
        self.assertEqual(status, code, reply)
        self.assertIn(b'connection: close', reply.lower())
        self.assertNotIn(b'"id":7', reply)  # the body was never read as a request
        self.assertLess(timed_ping(self.d), SERVED_WITHIN)

    def chunked(self, eol=b'\r\n', size=None):
        """The ping as one chunk and the last chunk, lines ended by `eol`."""
        size = size or b'%x' % len(self.ping)
        return size + eol + self.ping + eol + b'0' + eol + eol

    def send(self, lines, body):
        return raw(self.d, [self.session()] + lines, body)

    def test_an_unknown_transfer_coding_beside_content_length_is_400_not_read_by_length(self):
        status, reply = self.send(['Transfer-Encoding: xchunked', 'Content-Length: %d' % len(self.ping)], self.ping)
        self.assert_refused(status, reply, 400)

    def test_gzip_then_chunked_is_501(self):
        self.assert_refused(*self.send(['Transfer-Encoding: gzip, chunked'], self.chunked()), 501)

    def test_chunked_beside_content_length_is_400(self):
        body = self.chunked()
        status, reply = self.send(['Transfer-Encoding: chunked', 'Content-Length: %d' % len(body)], body)
        self.assert_refused(status, reply, 400)

    def test_a_chunk_size_overflow_is_400(self):
        self.assert_refused(*self.send(['Transfer-Encoding: chunked'], self.chunked(size=b'1' * 40)), 400)

    def test_a_bare_lf_in_a_chunk_is_400(self):
        self.assert_refused(*self.send(['Transfer-Encoding: chunked'], self.chunked(eol=b'\n')), 400)

    def test_a_well_formed_chunked_request_is_still_answered(self):
        status, reply = self.send(['Transfer-Encoding: chunked', 'Connection: close'], self.chunked())
        self.assertEqual(status, 200, reply)
        self.assertIn(b'"id":7', reply)

if __name__ == '__main__':
    unittest.main()
