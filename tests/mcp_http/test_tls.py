"""HTTPS for the HTTP listener: a self-signed certificate made with `openssl req`, served on
127.0.0.1 (TLS is allowed on loopback too), checked with Python's `ssl` module; and the rules
for non-loopback addresses (allow_remote and a certificate and key, else refused)."""
import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
import unittest

from common import BIN, INIT, TOKEN, Client, Proc, env_with_token, text_of

TMP = None


def openssl(*args):
    subprocess.run(['openssl', *args], check=True, capture_output=True, timeout=60)


def make_pair(name):
    """A self-signed EC certificate for 127.0.0.1/localhost and its unencrypted key."""
    cert, key = os.path.join(TMP, name + '.crt'), os.path.join(TMP, name + '.key')
    openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
            '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=omgdb-test',
            '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost')
    return cert, key


def config(name, body):
    path = os.path.join(TMP, name + '.toml')
    with open(path, 'w') as f:
        f.write(body)
    return path


def tls_config(name, cert, key, allow_remote=False):
    return config(name, '[http]\nallow_remote = %s\ntls_cert = "%s"\ntls_key = "%s"\n'
                  % ('true' if allow_remote else 'false', cert, key))


def serve(cfg, listen='127.0.0.1:0', expect_url=True):
    return Proc([BIN, 'serve', '--unconfined-stores', '--config', cfg, '--listen', listen, '--state-dir',
                 os.path.join(TMP, 'state')],
                env_with_token(), expect_url=expect_url)


def refused(cfg, listen):
    r = subprocess.run([BIN, 'serve', '--config', cfg, '--listen', listen, '--state-dir',
                        os.path.join(TMP, 'state')], env=env_with_token(), stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=20)
    return r.returncode, r.stderr


def setUpModule():
    global TMP, CERT, KEY, OTHER_CERT, OTHER_KEY
    TMP = tempfile.mkdtemp(prefix='omgdb-tls-')
    CERT, KEY = make_pair('server')
    OTHER_CERT, OTHER_KEY = make_pair('other')
    subprocess.run([BIN, 'create', os.path.join(TMP, 'store')], check=True, capture_output=True, timeout=30)


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


class Https(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = serve(tls_config('tls', CERT, KEY))
        cls.ctx = ssl.create_default_context(cafile=CERT)  # verifies the chain and 127.0.0.1

    @classmethod
    def tearDownClass(cls):
        cls.d.proc.terminate()
        code = cls.d.wait(20)
        assert code == 0, cls.d.stderr()

    def test_the_listening_line_says_https(self):
        self.assertTrue(self.d.url.startswith('https://127.0.0.1:'), self.d.url)

    def test_initialize_list_and_call_over_https(self):
        c = Client(self.d.port, tls_context=self.ctx)
        self.assertEqual(c.initialize()['result']['serverInfo']['name'], 'omgdb')
        tools = c.request('tools/list')['result']['tools']
        self.assertIn('insert', [t['name'] for t in tools])
        store = os.path.join(TMP, 'store')
        r = c.tool('insert', {'path': store, 'collection': 'c', 'document': {'_id': 'tls', 'v': 7}})
        self.assertFalse(r['result'].get('isError'), r)
        got = c.tool('get', {'path': store, 'collection': 'c', 'id': 'tls'})
        self.assertEqual(json.loads(text_of(got))['v'], 7)

    def test_an_sse_answer_streams_over_https(self):
        c = Client(self.d.port, tls_context=self.ctx)
        c.initialize()
        status, headers, body = c.post({'jsonrpc': '2.0', 'id': 9, 'method': 'tools/call', 'params': {
            'name': 'inspect', 'arguments': {'path': os.path.join(TMP, 'store')}, '_meta': {'progressToken': 'p'}}},
            accept='text/event-stream')
        self.assertEqual(status, 200)
        self.assertTrue(headers['content-type'].startswith('text/event-stream'), headers)
        self.assertIn(b'"id":9', body)

    def open_get(self, c):
        conn = c.connection()
        conn.request('GET', '/mcp', headers={'Authorization': 'Bearer ' + TOKEN, 'Accept': 'text/event-stream',
                                             'Mcp-Session-Id': c.session})
        return conn, conn.getresponse()

    def test_a_dropped_get_stream_is_noticed_at_once_so_a_reconnect_succeeds(self):
        c = Client(self.d.port, tls_context=self.ctx)
        c.initialize()
        conn, first = self.open_get(c)
        self.assertEqual(first.status, 200)
        self.assertEqual(self.open_get(c)[1].status, 409)
        first.close()
        conn.close()
        deadline = time.monotonic() + 3  # keep-alive comments come every 15 s: not what frees it
        status = 409
        while status == 409 and time.monotonic() < deadline:
            time.sleep(0.2)
            again, r = self.open_get(c)
            status = r.status
            r.close()
            again.close()
        self.assertEqual(status, 200)

    def via(self, ca):
        env = env_with_token()
        env['SSL_CERT_FILE'] = ca
        messages = [INIT, {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
                    {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'}]
        r = subprocess.run([BIN, 'mcp', '--via', 'https://127.0.0.1:%d/mcp' % self.d.port], env=env,
                           input=''.join(json.dumps(m) + '\n' for m in messages), capture_output=True, text=True,
                           timeout=60)
        return [json.loads(line) for line in r.stdout.splitlines()], r.stderr, r.returncode

    def test_the_via_bridge_speaks_https_and_verifies_the_certificate(self):
        lines, err, code = self.via(CERT)
        self.assertEqual(code, 0, err)
        self.assertEqual([m.get('id') for m in lines], [1, 2], lines)
        self.assertIn('insert', [t['name'] for t in lines[1]['result']['tools']])
        lines, err, code = self.via(OTHER_CERT)  # a CA that did not sign the daemon's certificate
        self.assertEqual(code, 0, err)
        self.assertTrue(lines and all('error' in m for m in lines), lines)
        self.assertIn('certificate verify failed', lines[0]['error']['message'])

    def test_the_token_is_still_required(self):
        c = Client(self.d.port, tls_context=self.ctx)
        self.assertEqual(c.post(INIT, token=False)[0], 401)

    def test_plain_http_to_the_tls_port_gets_a_clear_400_and_the_server_lives_on(self):
        conn = http.client.HTTPConnection('127.0.0.1', self.d.port, timeout=10)
        conn.request('POST', '/mcp', body=json.dumps(INIT), headers={'Content-Type': 'application/json'})
        r = conn.getresponse()
        self.assertEqual(r.status, 400)
        self.assertIn(b'HTTPS', r.read())
        conn.close()
        with socket.create_connection(('127.0.0.1', self.d.port), timeout=10) as s:
            s.sendall(b'\x16\x03\x01\x00\x05garbage-that-is-no-hello')  # a broken handshake
            s.settimeout(10)
            try:
                while s.recv(4096):
                    pass
            except OSError:
                pass
        self.assertEqual(Client(self.d.port, tls_context=self.ctx).post(INIT)[0], 200)
        self.assertIsNone(self.d.proc.poll())

    def test_tls_older_than_1_2_is_refused(self):
        old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        old.load_verify_locations(CERT)
        try:
            old.minimum_version = ssl.TLSVersion.TLSv1
            old.maximum_version = ssl.TLSVersion.TLSv1_1
        except (ValueError, ssl.SSLError):
            self.skipTest('this Python cannot offer TLS 1.1')
        with self.assertRaises((ssl.SSLError, OSError)):
            Client(self.d.port, tls_context=old).post(INIT)
        self.assertEqual(Client(self.d.port, tls_context=self.ctx).post(INIT)[0], 200)

    def test_a_client_that_distrusts_the_certificate_fails_the_handshake(self):
        strict = ssl.create_default_context(cafile=OTHER_CERT)
        with self.assertRaises(ssl.SSLCertVerificationError):
            Client(self.d.port, tls_context=strict).post(INIT)


class Addresses(unittest.TestCase):
    def test_non_loopback_without_allow_remote_is_refused(self):
        code, err = refused(tls_config('no-remote', CERT, KEY, allow_remote=False), '0.0.0.0:0')
        self.assertEqual(code, 2)
        self.assertIn('not a loopback address', err)
        self.assertIn('allow_remote = true', err)

    def test_non_loopback_without_a_certificate_is_refused(self):
        code, err = refused(config('remote-no-cert', '[http]\nallow_remote = true\n'), '0.0.0.0:0')
        self.assertEqual(code, 2)
        self.assertIn('not a loopback address', err)
        self.assertIn('tls_cert', err)

    def test_non_loopback_with_allow_remote_and_tls_serves_https(self):
        d = serve(tls_config('remote', CERT, KEY, allow_remote=True), listen='0.0.0.0:0')
        try:
            self.assertTrue(d.url.startswith('https://0.0.0.0:'), d.url)
            ctx = ssl.create_default_context(cafile=CERT)
            self.assertEqual(Client(d.port, tls_context=ctx).post(INIT)[0], 200)
            self.assertEqual(Client(d.port, tls_context=ctx).post(INIT, token=False)[0], 401)
        finally:
            d.proc.terminate()
            self.assertEqual(d.wait(20), 0, d.stderr())


class CertificateErrors(unittest.TestCase):
    def start_fails(self, cfg):
        r = subprocess.run([BIN, 'serve', '--config', cfg, '--listen', '127.0.0.1:0', '--state-dir',
                            os.path.join(TMP, 'state')], env=env_with_token(), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=20)
        self.assertNotEqual(r.returncode, 0)
        self.assertNotIn('listening on', r.stderr)
        return r.stderr

    def test_a_missing_certificate_is_named(self):
        err = self.start_fails(tls_config('missing', os.path.join(TMP, 'nope.crt'), KEY))
        self.assertIn('cannot read the TLS cert', err)
        self.assertIn('nope.crt', err)

    def test_a_file_that_is_no_certificate_is_named(self):
        junk = os.path.join(TMP, 'junk.crt')
        with open(junk, 'w') as f:
            f.write('not a certificate\n')
        err = self.start_fails(tls_config('junk', junk, KEY))
        self.assertIn('cannot use the TLS certificate', err)

    def test_a_key_that_does_not_match_the_certificate_is_refused(self):
        err = self.start_fails(tls_config('mismatch', CERT, OTHER_KEY))
        self.assertIn('does not match the certificate', err)

    def test_an_encrypted_key_is_refused_without_a_prompt(self):
        locked = os.path.join(TMP, 'locked.key')
        openssl('pkey', '-in', KEY, '-out', locked, '-aes256', '-passout', 'pass:secret-pass')
        err = self.start_fails(tls_config('locked', CERT, locked))
        self.assertIn('cannot use the TLS key', err)
        self.assertIn('unencrypted', err)

    def test_the_same_checks_apply_to_mcp_http(self):
        r = subprocess.run([BIN, 'mcp', '--config', tls_config('mcp-mismatch', CERT, OTHER_KEY),
                            '--http', '127.0.0.1:0'], env=env_with_token(), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=20)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('does not match the certificate', r.stderr)
        self.assertEqual(r.stdout, '')


class McpHttpOverTls(unittest.TestCase):
    def test_mcp_http_serves_https_when_configured(self):
        p = Proc([BIN, 'mcp', '--config', tls_config('mcp-tls', CERT, KEY), '--http', '127.0.0.1:0'],
                 env_with_token(), stdin=subprocess.PIPE)
        try:
            self.assertTrue(p.url.startswith('https://'), p.url)
            ctx = ssl.create_default_context(cafile=CERT)
            c = Client(p.port, tls_context=ctx)
            c.initialize()
            self.assertIn('result', c.request('tools/list'))
            p.proc.stdin.close()
            self.assertEqual(p.wait(20), 0, p.stderr())
        finally:
            p.kill()


if __name__ == '__main__':
    unittest.main(verbosity=2)
