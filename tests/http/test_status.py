"""Status-code rules of the Streamable HTTP endpoint (docs/http.md), one test per rule and per
interop pitfall of shared/notes/mcp-protocol.md §6."""
import unittest

from http_helpers import (BOTH, INIT, Daemon, RawStream, auth_headers, initialize, request)

D = None


def setUpModule():
    global D
    D = Daemon('--max-body-bytes', '4096')


def tearDownModule():
    D.cleanup()


def error_of(reply):
    body = reply.json()
    assert 'id' not in body or body['id'] is not None, body  # never "id": null (pitfall 17)
    return body['error']


class Post(unittest.TestCase):
    def test_initialize_issues_a_128_bit_session_id_with_a_json_response(self):
        r = request(D, body=INIT)
        self.assertEqual(r.status, 200)
        self.assertEqual(r.headers['content-type'], 'application/json')
        self.assertRegex(r.headers['mcp-session-id'], r'^[0-9a-f]{32}$')
        self.assertEqual(r.json()['result']['protocolVersion'], '2025-11-25')

    def test_each_initialize_gets_a_different_session(self):
        self.assertNotEqual(initialize(D), initialize(D))

    def test_a_notification_gets_202_and_no_body(self):
        sid = initialize(D)
        r = request(D, body={'jsonrpc': '2.0', 'method': 'notifications/whatever'}, session=sid)
        self.assertEqual((r.status, r.body), (202, b''))

    def test_a_client_response_gets_202_and_no_body(self):
        sid = initialize(D)
        r = request(D, body={'jsonrpc': '2.0', 'id': 'srv-1', 'result': {}}, session=sid)
        self.assertEqual((r.status, r.body), (202, b''))

    def test_accept_missing_or_any_gets_json(self):
        sid = initialize(D)
        for accept in (None, '*/*', 'application/json'):
            r = request(D, body={'jsonrpc': '2.0', 'id': 7, 'method': 'ping'}, session=sid,
                        headers={'Accept': accept})
            self.assertEqual(r.status, 200, accept)
            self.assertEqual(r.headers['content-type'], 'application/json')  # pitfall 4
            self.assertEqual(r.json(), {'jsonrpc': '2.0', 'id': 7, 'result': {}})

    def test_an_unacceptable_accept_is_406(self):
        sid = initialize(D)
        r = request(D, body={'jsonrpc': '2.0', 'id': 7, 'method': 'ping'}, session=sid,
                    headers={'Accept': 'text/html'})
        self.assertEqual(r.status, 406)

    def test_id_zero_is_a_valid_id(self):
        sid = initialize(D)
        r = request(D, body={'jsonrpc': '2.0', 'id': 0, 'method': 'ping'}, session=sid)
        self.assertEqual(r.json()['id'], 0)

    def test_non_json_content_type_is_415(self):
        sid = initialize(D)
        for ctype in ('text/plain', 'application/x-www-form-urlencoded'):
            r = request(D, raw_body=b'{}', session=sid, headers={'Content-Type': ctype})
            self.assertEqual(r.status, 415, ctype)
        r = request(D, raw_body=b'{}', session=sid, headers={'Content-Type': 'application/json; charset=utf-8',
                                                           'Accept': BOTH})
        self.assertNotEqual(r.status, 415)

    def test_unparseable_json_is_400_parse_error_without_id(self):
        sid = initialize(D)
        r = request(D, raw_body=b'{"jsonrpc":"2.0","id":1,', session=sid)
        self.assertEqual(r.status, 400)
        self.assertEqual(r.headers['content-type'], 'application/json')
        self.assertNotIn('id', r.json())
        self.assertEqual(error_of(r)['code'], -32700)

    def test_a_batch_is_refused(self):
        sid = initialize(D)
        r = request(D, body=[{'jsonrpc': '2.0', 'id': 1, 'method': 'ping'}], session=sid)
        self.assertEqual(r.status, 400)
        self.assertEqual(error_of(r)['code'], -32600)

    def test_a_null_id_is_refused(self):
        sid = initialize(D)
        r = request(D, body={'jsonrpc': '2.0', 'id': None, 'method': 'ping'}, session=sid)
        self.assertEqual(r.status, 400)
        self.assertEqual(error_of(r)['code'], -32600)

    def test_a_body_over_the_limit_is_413(self):
        sid = initialize(D)
        big = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b'x' * 5000 + b'"}}'
        r = request(D, raw_body=big, session=sid)
        self.assertEqual(r.status, 413)

    def test_a_chunked_body_over_the_limit_is_413(self):
        # Raw socket: the server may answer 413 and close before the last chunk is sent, which
        # is correct, so a failed send must not fail the test; the answer is what counts.
        import socket
        sid = initialize(D)
        token = __import__('http_helpers').TOKEN
        head = ('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n'
                'Content-Type: application/json\r\nMcp-Session-Id: %s\r\n'
                'Transfer-Encoding: chunked\r\n\r\n' % (D.port, token, sid)).encode()
        part1 = b'{"pad":"' + b'x' * 3000
        part2 = b'y' * 3000 + b'"}'
        body = b''.join(b'%x\r\n%s\r\n' % (len(c), c) for c in (part1, part2)) + b'0\r\n\r\n'
        with socket.create_connection(('127.0.0.1', D.port), timeout=10) as sock:
            try:
                sock.sendall(head + body)
            except (BrokenPipeError, ConnectionResetError):
                pass
            reply = b''
            try:
                while b'\r\n' not in reply:
                    data = sock.recv(4096)
                    if not data:
                        break
                    reply += data
            except ConnectionResetError:
                pass
        self.assertTrue(reply.startswith(b'HTTP/1.1 413'), reply[:80])


class Sessions(unittest.TestCase):
    def test_a_missing_session_id_after_initialize_is_400(self):
        r = request(D, body={'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'})
        self.assertEqual(r.status, 400)
        self.assertIn('Mcp-Session-Id', error_of(r)['message'])

    def test_an_unknown_session_id_is_404_session_not_found(self):
        r = request(D, body={'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'}, session='0' * 32)
        self.assertEqual(r.status, 404)
        self.assertEqual(error_of(r), {'code': -32001, 'message': 'Session not found'})

    def test_delete_ends_the_session_and_later_requests_get_404(self):
        sid = initialize(D)
        self.assertEqual(request(D, 'DELETE', session=sid).status, 200)
        r = request(D, body={'jsonrpc': '2.0', 'id': 3, 'method': 'ping'}, session=sid)
        self.assertEqual(r.status, 404)
        self.assertEqual(request(D, 'DELETE', session=sid).status, 404)
        self.assertEqual(request(D, 'GET', session=sid, headers={'Accept': 'text/event-stream'}).status, 404)

    def test_protocol_version_header_absent_or_supported_is_fine_unsupported_is_400(self):
        sid = initialize(D)
        ping = {'jsonrpc': '2.0', 'id': 4, 'method': 'ping'}
        for version in (None, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'):
            r = request(D, body=ping, session=sid, headers={'MCP-Protocol-Version': version})
            self.assertEqual(r.status, 200, version)
        r = request(D, body=ping, session=sid, headers={'MCP-Protocol-Version': '2026-07-28'})
        self.assertEqual(r.status, 400)
        self.assertIn('2026-07-28', error_of(r)['message'])

    def test_a_modern_server_discover_probe_is_answered_as_the_modern_revision(self):
        # 2026-07-28 is served beside the legacy revisions (tests/http/test_modern.py): the
        # probe of a dual-era client gets a DiscoverResult, so that client stays modern.
        meta = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {}}
        r = request(D, body={'jsonrpc': '2.0', 'id': 'server-discover-probe-1', 'method': 'server/discover',
                             'params': {'_meta': meta}},
                    headers={'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover'})
        self.assertEqual(r.status, 200)
        self.assertIn('2026-07-28', r.json()['result']['supportedVersions'])


class Methods(unittest.TestCase):
    def test_other_methods_are_405_with_allow(self):
        for method in ('PUT', 'PATCH', 'HEAD'):
            r = request(D, method)
            self.assertEqual(r.status, 405, method)
            self.assertEqual(r.headers['allow'], 'GET, POST, DELETE')

    def test_every_other_path_is_a_clean_404_even_without_a_token(self):
        paths = ['/', '/mcp/', '/mcpx', '/sse', '/messages', '/.well-known/oauth-protected-resource',
                 '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server',
                 '/.well-known/openid-configuration', '/register', '/authorize', '/token']
        for path in paths:
            for auth in (True, False):
                r = request(D, 'GET', path=path, auth=auth)
                self.assertEqual(r.status, 404, path)
                self.assertEqual(r.headers['content-type'], 'application/json', path)
                error_of(r)

    def test_get_without_a_session_is_400(self):
        self.assertEqual(request(D, 'GET', headers={'Accept': 'text/event-stream'}).status, 400)

    def test_get_that_accepts_no_event_stream_is_406(self):
        sid = initialize(D)
        self.assertEqual(request(D, 'GET', session=sid, headers={'Accept': 'application/json'}).status, 406)

    def test_an_envelope_that_is_not_json_rpc_2_0_is_400_with_its_id(self):
        for body in ({'jsonrpc': '1.0', 'id': 3, 'method': 'initialize', 'params': {}},
                     {'id': 3, 'method': 'initialize', 'params': {}}):
            r = request(D, body=body)
            self.assertEqual(r.status, 400)
            self.assertNotIn('mcp-session-id', r.headers)
            self.assertEqual(r.json()['id'], 3)
            self.assertEqual(error_of(r)['code'], -32600)
            self.assertIn('jsonrpc', error_of(r)['message'])
        sid = initialize(D)
        r = request(D, raw_body=b'{"jsonrpc":"2.0","id":4,"method":"tools/list","method":"ping"}', session=sid,
                    headers={'Content-Type': 'application/json'})
        self.assertEqual(r.status, 400)
        self.assertIn('duplicate key', error_of(r)['message'])

    def test_keep_alive_carries_many_requests_on_one_connection(self):
        import http.client
        import json
        from http_helpers import TOKEN
        sid = initialize(D)
        conn = http.client.HTTPConnection('127.0.0.1', D.port, timeout=10)
        for i in range(5):
            conn.request('POST', '/mcp', body=json.dumps({'jsonrpc': '2.0', 'id': i, 'method': 'ping'}),
                         headers={'Authorization': 'Bearer ' + TOKEN, 'Content-Type': 'application/json',
                                  'Mcp-Session-Id': sid})
            resp = conn.getresponse()
            self.assertEqual(json.loads(resp.read())['id'], i)
        conn.close()


class Limits(unittest.TestCase):
    def test_the_session_cap_answers_503_with_a_clear_message(self):
        d = Daemon('--max-sessions', '2')
        try:
            initialize(d)
            initialize(d)
            r = request(d, body=INIT)
            self.assertEqual(r.status, 503)
            self.assertIn('--max-sessions', error_of(r)['message'])
        finally:
            d.cleanup()

    def test_one_token_cannot_take_every_session(self):
        # Issue 16 item 3: a burst of initialize calls with one token fills only its quota.
        d = Daemon('--max-sessions-per-token', '3')
        try:
            for _ in range(3):
                initialize(d)
            for _ in range(20):
                r = request(d, body=INIT)
                self.assertEqual(r.status, 503)
            self.assertIn('--max-sessions-per-token', error_of(r)['message'])
            self.assertEqual(r.headers.get('retry-after'), '60')
        finally:
            d.cleanup()

    def test_a_bogus_log_level_is_refused_and_never_reaches_the_state_file(self):
        import os
        d = Daemon()
        try:
            sid = initialize(d)
            bogus = {'jsonrpc': '2.0', 'id': 5, 'method': 'logging/setLevel', 'params': {'level': 'x' * 4000000}}
            r = request(d, body=bogus, session=sid)
            self.assertEqual(r.status, 200)
            self.assertEqual(error_of(r)['code'], -32602)
            self.assertEqual(request(d, body={'jsonrpc': '2.0', 'id': 6, 'method': 'ping'}, session=sid).status, 200)
            self.assertEqual(d.stop(), 0)
            self.assertLess(os.path.getsize(os.path.join(d.state_dir, 'http-sessions.json')), 4096)
        finally:
            d.cleanup()

    def test_connections_over_the_limit_get_503(self):
        d = Daemon('--max-connections', '2')
        try:
            # Both slots busy for authenticated clients (an open SSE stream each): idle or
            # unauthenticated connections would be closed to make room instead
            # (test_limits.Slots).
            import time
            held = []
            for _ in range(2):
                sid = initialize(d)
                held.append(RawStream(d, 'GET', auth_headers(**{'Accept': 'text/event-stream', 'Mcp-Session-Id': sid})))
                held[-1].read_until(b'\r\n\r\n')
            time.sleep(0.2)  # the initialize connections are gone
            r = request(d, body=INIT)
            self.assertEqual(r.status, 503)
            self.assertIn('too many open connections', error_of(r)['message'])
            for s in held:
                s.close()
            time.sleep(0.2)
            self.assertEqual(request(d, body=INIT).status, 200)
        finally:
            d.cleanup()

    def test_idle_sessions_expire(self):
        import time
        d = Daemon('--session-idle', '1')
        try:
            sid = initialize(d)
            ping = {'jsonrpc': '2.0', 'id': 1, 'method': 'ping'}
            self.assertEqual(request(d, body=ping, session=sid).status, 200)
            time.sleep(3.2)  # idle 1 s, swept every second; any request would keep it alive
            status = request(d, body=ping, session=sid).status
            self.assertEqual(status, 404)
            self.assertIn('expired', d.stderr())
        finally:
            d.cleanup()


if __name__ == '__main__':
    unittest.main()
