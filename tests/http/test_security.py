"""Who gets in: bearer token rules, Host and Origin allow-lists (DNS rebinding), CORS
preflight, start-up refusals, and that no token ever reaches the daemon's stderr."""
import json
import socket
import subprocess
import unittest

from http_helpers import BIN, INIT, TOKEN, Daemon, initialize, request

D = None
PING = {'jsonrpc': '2.0', 'id': 1, 'method': 'ping'}
WRONG = 'wrong-token-but-long-enough-0000'


def setUpModule():
    global D
    D = Daemon('--allow-origin', 'https://tunnel.example', '--allow-host', 'tunnel.example')


def tearDownModule():
    D.cleanup()


class Token(unittest.TestCase):
    def test_no_token_is_401_with_a_bearer_challenge(self):
        r = request(D, body=INIT, auth=False)
        self.assertEqual(r.status, 401)
        self.assertEqual(r.headers['www-authenticate'], 'Bearer realm="omgdb"')

    def test_a_wrong_token_is_401_invalid_token(self):
        r = request(D, body=INIT, token=WRONG)
        self.assertEqual(r.status, 401)
        self.assertEqual(r.headers['www-authenticate'], 'Bearer realm="omgdb", error="invalid_token"')

    def test_another_scheme_is_401(self):
        r = request(D, body=INIT, auth=False, headers={'Authorization': 'Basic dXNlcjpwYXNz'})
        self.assertEqual(r.status, 401)

    def test_the_scheme_is_case_insensitive(self):
        r = request(D, body=INIT, auth=False, headers={'Authorization': 'bearer ' + TOKEN})
        self.assertEqual(r.status, 200)

    def test_every_method_needs_the_token(self):
        sid = initialize(D)
        for method in ('GET', 'DELETE'):
            self.assertEqual(request(D, method, session=sid, auth=False).status, 401, method)
        self.assertEqual(request(D, body=PING, session=sid, auth=False).status, 401)

    def test_a_token_in_the_query_string_is_refused(self):
        for query in ('access_token=' + TOKEN, 'token=' + TOKEN, 'x=1&Bearer=' + TOKEN):
            r = request(D, body=INIT, path='/mcp?' + query, auth=False)
            self.assertEqual(r.status, 400, query)
            r = request(D, body=INIT, path='/mcp?' + query)
            self.assertEqual(r.status, 400, query)

    def test_token_new_prints_a_fresh_43_character_token(self):
        out = [subprocess.run([BIN, 'token', 'new'], capture_output=True, text=True, timeout=10) for _ in range(2)]
        tokens = [o.stdout.strip() for o in out]
        for o, t in zip(out, tokens):
            self.assertEqual(o.returncode, 0)
            self.assertRegex(t, r'^[A-Za-z0-9_-]{43}$')
            self.assertNotIn(t, o.stderr)
        self.assertNotEqual(tokens[0], tokens[1])


class HostAndOrigin(unittest.TestCase):
    def test_a_foreign_host_is_403_dns_rebinding(self):
        for host in ('evil.example.com', 'evil.example.com:%d' % D.port, '127.0.0.1:1', 'localhost',
                     '127.0.0.1:%d.evil' % D.port):
            r = request(D, body=INIT, headers={'Host': host})
            self.assertEqual(r.status, 403, host)

    def test_loopback_hosts_with_the_port_and_allowed_hosts_pass(self):
        for host in ('127.0.0.1:%d' % D.port, 'localhost:%d' % D.port, 'LOCALHOST:%d' % D.port,
                     '[::1]:%d' % D.port, 'tunnel.example', 'tunnel.example:443'):
            r = request(D, body=INIT, headers={'Host': host})
            self.assertEqual(r.status, 200, host)

    def test_conformance_dns_rebinding_scenario(self):
        evil = request(D, body=INIT, headers={'Host': 'evil.example.com', 'Origin': 'http://evil.example.com'})
        self.assertTrue(400 <= evil.status < 500)
        self.assertEqual(evil.status, 403)
        good = request(D, body=INIT, headers={'Host': 'localhost:%d' % D.port,
                                              'Origin': 'http://localhost:%d' % D.port})
        self.assertEqual(good.status, 200)

    def test_origin_absent_or_loopback_of_the_port_or_allowed_passes(self):
        for origin in (None, 'http://127.0.0.1:%d' % D.port, 'http://localhost:%d' % D.port,
                       'http://[::1]:%d' % D.port, 'https://tunnel.example', 'https://TUNNEL.example/'):
            r = request(D, body=INIT, headers={'Origin': origin})
            self.assertEqual(r.status, 200, origin)
            if origin:
                self.assertEqual(r.headers['access-control-allow-origin'], origin)
                self.assertIn('Mcp-Session-Id', r.headers['access-control-expose-headers'])

    def test_other_null_or_malformed_origins_are_403(self):
        for origin in ('http://evil.example', 'null', 'http://localhost:1', 'https://localhost:%d' % D.port,
                       'http://127.0.0.1:%d/path' % D.port, 'localhost:%d' % D.port, 'http://',
                       'http://user@127.0.0.1:%d' % D.port, 'https://tunnel.example.evil'):
            r = request(D, body=INIT, headers={'Origin': origin})
            self.assertEqual(r.status, 403, origin)
            self.assertNotIn('access-control-allow-origin', r.headers)

    def test_cors_preflight_for_an_allowed_origin(self):
        origin = 'http://localhost:%d' % D.port
        r = request(D, 'OPTIONS', auth=False, headers={
            'Origin': origin, 'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'authorization, content-type, mcp-session-id'})
        self.assertEqual(r.status, 204)
        self.assertEqual(r.headers['access-control-allow-origin'], origin)
        allowed = r.headers['access-control-allow-headers'].lower()
        for h in ('authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'):
            self.assertIn(h, allowed)
        self.assertIn('POST', r.headers['access-control-allow-methods'])

    def test_cors_preflight_for_another_origin_is_403(self):
        r = request(D, 'OPTIONS', auth=False, headers={'Origin': 'http://evil.example',
                                                       'Access-Control-Request-Method': 'POST'})
        self.assertEqual(r.status, 403)


class StartUp(unittest.TestCase):
    def refused(self, *args, token=TOKEN):
        d = Daemon(*args, token=token, expect_start=False)
        try:
            code = d.wait_exit(15)
            return code, d.stderr()
        finally:
            d.cleanup()

    def test_without_a_token_the_daemon_refuses_to_start_and_says_how(self):
        code, err = self.refused(token=None)
        self.assertEqual(code, 2)
        self.assertIn('OMGDB_HTTP_TOKEN', err)
        self.assertIn('omgdb token new', err)

    def test_a_short_token_is_refused(self):
        code, err = self.refused(token='short-token')
        self.assertEqual(code, 2)
        self.assertIn('too short', err)
        self.assertNotIn('short-token', err)

    def test_a_token_with_whitespace_or_too_long_is_refused(self):
        for bad in ('has a space in it 0123456789', 'tab\tinside-0123456789abcdef', 'x' * 4097):
            code, err = self.refused(token=bad)
            self.assertEqual(code, 2, bad[:20])
            self.assertNotIn(bad, err)

    def test_a_non_loopback_listen_address_is_refused(self):
        for addr in ('0.0.0.0:0', '192.0.2.1:0', '[::]:0', 'example.com:0'):
            code, err = self.refused('--listen', addr)
            self.assertEqual(code, 2, addr)
            self.assertIn('loopback', err)

    def test_no_auth_warns_loudly_and_serves_without_a_token(self):
        d = Daemon('--no-auth', token=None)
        try:
            self.assertIn('WARNING: --no-auth', d.stderr())
            self.assertEqual(request(d, body=INIT, auth=False).status, 200)
            # Host and Origin rules still hold without auth.
            self.assertEqual(request(d, body=INIT, auth=False, headers={'Host': 'evil.example'}).status, 403)
        finally:
            d.cleanup()

    def test_start_up_prints_the_url_and_how_to_authenticate_but_never_the_token(self):
        err = D.stderr()
        self.assertIn('listening on http://127.0.0.1:%d/mcp' % D.port, err)
        self.assertIn('Authorization: Bearer', err)
        self.assertNotIn(TOKEN, err)




class ZLogs(unittest.TestCase):
    def test_no_token_reached_the_log_even_at_debug_level(self):
        request(D, body=INIT, path='/mcp?access_token=' + TOKEN)
        request(D, body=INIT, token=WRONG)
        err = D.stderr()
        self.assertNotIn(TOKEN, err)
        self.assertNotIn(WRONG, err)


if __name__ == '__main__':
    unittest.main()


def raw_post(d, lines, body):
    """POSTs `body` with exactly the header lines given (repeats and spelling kept) on a
    connection the server closes after its reply; returns the status and the whole reply."""
    data = json.dumps(body).encode()
    head = ['POST /mcp HTTP/1.1'] + lines + ['Content-Type: application/json', 'Connection: close',
                                             'Content-Length: %d' % len(data)]
    s = socket.create_connection(('127.0.0.1', d.port), timeout=10)
    s.sendall(('\r\n'.join(head) + '\r\n\r\n').encode() + data)
    reply = b''
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        reply += chunk
    s.close()
    return int(reply.split(b' ', 2)[1]), reply


class RepeatedHeaders(unittest.TestCase):
    def host(self):
        return 'Host: 127.0.0.1:%d' % D.port

    def test_a_repeated_security_header_is_400(self):
        sid = initialize(D)
        auth = 'Authorization: Bearer ' + TOKEN
        cases = {
            'Host': [self.host(), self.host(), auth, 'Mcp-Session-Id: ' + sid],
            'Authorization': [self.host(), auth, auth, 'Mcp-Session-Id: ' + sid],
            'Mcp-Session-Id': [self.host(), auth, 'Mcp-Session-Id: ' + sid, 'mcp-session-id: ' + sid],
            'Origin': [self.host(), auth, 'Origin: https://tunnel.example', 'Origin: https://tunnel.example',
                       'Mcp-Session-Id: ' + sid],
        }
        for name, lines in cases.items():
            status, reply = raw_post(D, lines, PING)
            self.assertEqual(status, 400, name)
            self.assertIn(b'repeated', reply, name)

    def test_header_names_are_case_insensitive_and_other_repeats_are_harmless(self):
        sid = initialize(D)
        lines = ['host: 127.0.0.1:%d' % D.port, 'authorization: Bearer ' + TOKEN, 'MCP-SESSION-ID: ' + sid,
                 'mcp-protocol-version: 2025-11-25', 'Accept: application/json', 'Accept: text/event-stream']
        status, reply = raw_post(D, lines, PING)
        self.assertEqual(status, 200, reply)
        self.assertIn(b'"result":{}', reply)

    def test_an_unsupported_protocol_version_is_found_whatever_its_spelling(self):
        sid = initialize(D)
        lines = [self.host(), 'Authorization: Bearer ' + TOKEN, 'Mcp-Session-Id: ' + sid,
                 'mcp-PROTOCOL-version: 1999-01-01']
        status, _ = raw_post(D, lines, PING)
        self.assertEqual(status, 400)
