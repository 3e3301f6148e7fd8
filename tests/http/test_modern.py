"""The stateless revision 2026-07-28 over raw HTTP and stdio, beside the legacy revisions
(transports/http_modern.hpp, mcp/modern.hpp): every header rule, era detection, discovery,
tools/list caching hints, structured results, progress over SSE, cancellation by closing the
response, scope and token rules exactly as legacy; and tools/list for 2024-11-05 and
2025-03-26 clients byte for byte what it was before the modern era existed."""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from http_helpers import (BIN, BOTH, TOKEN, Daemon, RawStream, auth_headers, initialize, parse_sse,
                          request)

V = '2026-07-28'
META = {'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': {'name': 'raw-modern-test', 'version': '1'}}
HERE = os.path.dirname(os.path.abspath(__file__))
READER = 'omgdb-reader-token-0123456789abcdef'


def modern(method, params=None, id=1, meta=None):
    p = dict(params or {})
    p['_meta'] = dict(META, **(meta or {}))
    return {'jsonrpc': '2.0', 'id': id, 'method': method, 'params': p}


def headers_for(body, **extra):
    h = {'MCP-Protocol-Version': V, 'Mcp-Method': body['method'], 'Accept': BOTH}
    name = body.get('params', {}).get('name')
    if name is not None:
        h['Mcp-Name'] = name
    h.update(extra)
    return h


def post(d, body, **extra):
    return request(d, body=body, headers=headers_for(body, **extra))


def error_of(r):
    return r.json()['error']


D = None
STORE = None


def setUpModule():
    global D, STORE
    D = Daemon('--conformance-fixtures')
    STORE = os.path.join(D.tmp, 'store')
    subprocess.run([BIN, 'create', STORE], check=True, capture_output=True)
    subprocess.run([BIN, 'insert', STORE, 'users', '{"_id": 1, "name": "ann"}'], check=True, capture_output=True)
    subprocess.run([BIN, 'insert', STORE, 'users', '{"_id": 2, "name": "bob"}'], check=True, capture_output=True)


def tearDownModule():
    D.cleanup()


class HeaderRules(unittest.TestCase):
    def test_a_missing_protocol_version_header_is_400_header_mismatch(self):
        body = modern('tools/list')
        r = request(D, body=body, headers={'Mcp-Method': 'tools/list'})
        self.assertEqual(r.status, 400)
        self.assertEqual(error_of(r)['code'], -32020)
        self.assertEqual(r.json()['id'], 1)

    def test_an_unsupported_version_is_400_with_the_supported_list(self):
        body = modern('tools/list', meta={'io.modelcontextprotocol/protocolVersion': '2099-01-01'})
        r = post(D, body, **{'MCP-Protocol-Version': '2099-01-01'})
        self.assertEqual(r.status, 400)
        err = error_of(r)
        self.assertEqual(err['code'], -32022)
        self.assertIn(V, err['data']['supported'])
        self.assertIn('2025-11-25', err['data']['supported'])
        self.assertEqual(err['data']['requested'], '2099-01-01')

    def test_a_header_version_other_than_the_body_version_is_400_header_mismatch(self):
        body = modern('tools/list', meta={'io.modelcontextprotocol/protocolVersion': '2025-11-25'})
        r = post(D, body)
        self.assertEqual(r.status, 400)
        self.assertEqual(error_of(r)['code'], -32020)

    def test_a_modern_body_without_its_version_or_capabilities_is_400_invalid_params(self):
        body = {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list', 'params': {}}  # no _meta at all
        r = post(D, body)
        self.assertEqual((r.status, error_of(r)['code']), (400, -32602))
        body = modern('tools/list')
        del body['params']['_meta']['io.modelcontextprotocol/clientCapabilities']
        r = post(D, body)
        self.assertEqual((r.status, error_of(r)['code']), (400, -32602))
        self.assertIn('clientCapabilities', error_of(r)['message'])

    def test_mcp_method_missing_or_mismatched_is_400_header_mismatch(self):
        body = modern('tools/list')
        r = request(D, body=body, headers={'MCP-Protocol-Version': V})
        self.assertEqual((r.status, error_of(r)['code']), (400, -32020))
        r = post(D, body, **{'Mcp-Method': 'server/discover'})
        self.assertEqual((r.status, error_of(r)['code']), (400, -32020))
        self.assertIn('server/discover', error_of(r)['message'])

    def test_mcp_name_missing_or_mismatched_is_400_and_the_base64_form_is_decoded(self):
        body = modern('tools/call', {'name': 'test_simple_text', 'arguments': {}})
        h = headers_for(body)
        del h['Mcp-Name']
        r = request(D, body=body, headers=h)
        self.assertEqual((r.status, error_of(r)['code']), (400, -32020))
        r = post(D, body, **{'Mcp-Name': 'get'})
        self.assertEqual((r.status, error_of(r)['code']), (400, -32020))
        r = post(D, body, **{'Mcp-Name': '=?base64?not base64?='})
        self.assertEqual((r.status, error_of(r)['code']), (400, -32020))
        encoded = '=?base64?' + base64.b64encode(b'test_simple_text').decode() + '?='
        r = post(D, body, **{'Mcp-Name': encoded})
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(r.json()['result']['content'][0]['text'], 'This is a simple text response for testing.')

    def test_a_method_this_revision_does_not_serve_is_404_method_not_found(self):
        for method in ('ping', 'logging/setLevel', 'resources/list', 'initialize'):
            body = modern(method)
            r = post(D, body)
            self.assertEqual(r.status, 404, method)
            self.assertEqual(error_of(r)['code'], -32601, method)

    def test_get_and_delete_with_the_modern_version_are_405_allow_post(self):
        for method in ('GET', 'DELETE'):
            r = request(D, method, headers={'MCP-Protocol-Version': V, 'Accept': 'text/event-stream'})
            self.assertEqual(r.status, 405, method)
            self.assertEqual(r.headers['allow'], 'POST')

    def test_a_modern_notification_is_202_without_a_body(self):
        r = request(D, body={'jsonrpc': '2.0', 'method': 'notifications/cancelled',
                             'params': {'requestId': 9, '_meta': META}},
                    headers={'MCP-Protocol-Version': V, 'Mcp-Method': 'notifications/cancelled'})
        self.assertEqual(r.status, 202)
        self.assertEqual(r.body, b'')


class Requests(unittest.TestCase):
    def test_server_discover_names_every_version_and_mints_no_session(self):
        r = post(D, modern('server/discover', id='d1'))
        self.assertEqual(r.status, 200)
        self.assertNotIn('mcp-session-id', r.headers)
        res = r.json()['result']
        self.assertEqual(res['resultType'], 'complete')
        self.assertEqual(res['supportedVersions'][0], V)
        self.assertIn('2024-11-05', res['supportedVersions'])
        self.assertIn('tools', res['capabilities'])
        self.assertEqual(res['_meta']['io.modelcontextprotocol/serverInfo']['name'], 'omgdb')
        self.assertGreaterEqual(res['ttlMs'], 0)
        self.assertIn(res['cacheScope'], ('public', 'private'))

    def test_tools_list_has_caching_hints_output_schemas_and_the_same_order_every_time(self):
        a = post(D, modern('tools/list')).json()['result']
        b = post(D, modern('tools/list', id=2)).json()['result']
        self.assertEqual([t['name'] for t in a['tools']], [t['name'] for t in b['tools']])
        self.assertEqual(a['resultType'], 'complete')
        self.assertEqual(a['cacheScope'], 'private')  # the list depends on the token's scope
        self.assertGreater(a['ttlMs'], 0)
        tools = {t['name']: t for t in a['tools']}
        self.assertEqual(tools['find']['outputSchema']['properties']['documents']['type'], 'array')
        self.assertEqual(tools['count_documents']['outputSchema'], {'type': 'object'})
        self.assertNotIn('outputSchema', tools['describe'])
        self.assertEqual(tools['insert']['_meta']['requiredScope'], 'read-write')
        self.assertEqual(tools['get']['_meta']['requiredScope'], 'read')

    def test_tools_call_returns_result_type_and_structured_content_beside_the_text(self):
        args = {'path': STORE, 'collection': 'users', 'id': 1}
        r = post(D, modern('tools/call', {'name': 'get', 'arguments': args}), **{'Mcp-Session-Id': 'bogus'})
        self.assertEqual(r.status, 200)  # a session id on a modern request is ignored
        self.assertNotIn('mcp-session-id', r.headers)
        res = r.json()['result']
        self.assertEqual(res['resultType'], 'complete')
        self.assertFalse(res['isError'])
        self.assertEqual(json.loads(res['content'][0]['text']), {'_id': 1, 'name': 'ann'})
        self.assertEqual(res['structuredContent'], {'document': {'_id': 1, 'name': 'ann'}})
        r = post(D, modern('tools/call', {'name': 'find', 'arguments': {'path': STORE, 'collection': 'users'}}))
        res = r.json()['result']
        self.assertEqual([d['name'] for d in res['structuredContent']['documents']], ['ann', 'bob'])

    def test_an_unknown_tool_is_invalid_params_and_a_bad_log_level_too(self):
        r = post(D, modern('tools/call', {'name': 'nope', 'arguments': {}}))
        self.assertEqual(r.status, 200)
        self.assertEqual(error_of(r)['code'], -32602)
        r = post(D, modern('tools/list', meta={'io.modelcontextprotocol/logLevel': 'loud'}))
        self.assertEqual(error_of(r)['code'], -32602)

    def test_a_tool_error_is_an_error_result_whose_structured_content_is_its_kind(self):
        r = post(D, modern('tools/call', {'name': 'get', 'arguments': {'path': STORE, 'collection': 'users'}}))
        res = r.json()['result']
        self.assertTrue(res['isError'])
        self.assertEqual(res['resultType'], 'complete')
        self.assertIn('missing argument `id`', res['content'][0]['text'])
        error = {'error': {'kind': 'invalid_argument', 'retryable': False}}
        self.assertEqual(res['structuredContent'], error)
        self.assertEqual(res['_meta'], error)

    def test_progress_and_requested_log_lines_come_on_an_sse_stream_with_proxy_headers(self):
        body = modern('tools/call', {'name': 'test_tool_with_progress', 'arguments': {}},
                      meta={'progressToken': 'p1'})
        r = post(D, body)
        self.assertEqual(r.status, 200)
        self.assertEqual(r.headers['content-type'], 'text/event-stream')
        self.assertEqual(r.headers['x-accel-buffering'], 'no')
        events = [e['data'] for e in r.events() if e['data']]
        progress = [e['params']['progress'] for e in events if e.get('method') == 'notifications/progress']
        self.assertEqual(progress, sorted(progress))
        self.assertIn(100, progress)
        self.assertEqual(events[-1]['result']['resultType'], 'complete')

    def test_log_lines_are_sent_only_when_the_request_asks_for_them(self):
        body = modern('tools/call', {'name': 'test_tool_with_logging', 'arguments': {}})
        r = post(D, body)
        self.assertEqual(r.headers['content-type'], 'application/json')  # no logLevel: no log lines
        body = modern('tools/call', {'name': 'test_tool_with_logging', 'arguments': {}},
                      meta={'io.modelcontextprotocol/logLevel': 'info'})
        r = post(D, body)
        events = [e['data'] for e in r.events() if e['data']]
        logs = [e['params']['data'] for e in events if e.get('method') == 'notifications/message']
        self.assertEqual(logs, ['Tool execution started', 'Tool processing data', 'Tool execution completed'])

    def test_closing_the_response_stream_cancels_the_call(self):
        body = json.dumps(modern('tools/call', {'name': 'test_tool_with_logging', 'arguments': {}}, id='slow-1',
                                 meta={'io.modelcontextprotocol/logLevel': 'info'})).encode()
        h = auth_headers(**headers_for(json.loads(body)))
        h['Content-Type'] = 'application/json'
        s = RawStream(D, 'POST', h, body)
        got = s.read_until(b'Tool execution started', timeout=10)
        self.assertIn(b'Tool execution started', got)
        s.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and 'test_tool_with_logging cancelled' not in D.stderr():
            time.sleep(0.05)
        self.assertIn('test_tool_with_logging cancelled', D.stderr())

    def test_legacy_sessions_keep_working_beside_modern_requests(self):
        sid = initialize(D)
        post(D, modern('tools/list'))
        r = request(D, body={'jsonrpc': '2.0', 'id': 5, 'method': 'tools/list'}, session=sid,
                    headers={'MCP-Protocol-Version': '2025-11-25'})
        self.assertEqual(r.status, 200)
        res = r.json()['result']
        self.assertNotIn('resultType', res)
        self.assertIn('outputSchema', {t['name']: t for t in res['tools']}['find'])


class Gate(unittest.TestCase):
    """Tokens, Origin, Host and scope apply to a modern request exactly as to a legacy one."""

    @classmethod
    def setUpClass(cls):
        import hashlib
        cls.tmp = tempfile.mkdtemp(prefix='omgdb-modern-')
        cfg = os.path.join(cls.tmp, 'omgdb.toml')
        with open(cfg, 'w') as f:
            f.write('[[http.tokens]]\nname = "reader"\nsha256 = "%s"\nscope = "read"\n'
                    % hashlib.sha256(READER.encode()).hexdigest())
        cls.d = Daemon('--config', cfg, token=None)

    @classmethod
    def tearDownClass(cls):
        cls.d.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_a_read_token_sees_no_write_tool_and_cannot_call_one(self):
        d = self.d
        body = modern('tools/list')
        r = request(d, body=body, headers=headers_for(body), token=READER)
        names = [t['name'] for t in r.json()['result']['tools']]
        self.assertIn('get', names)
        self.assertNotIn('insert', names)
        body = modern('tools/call', {'name': 'insert',
                                     'arguments': {'path': STORE, 'collection': 'users', 'document': {'_id': 9}}})
        r = request(d, body=body, headers=headers_for(body), token=READER)
        res = r.json()['result']
        self.assertTrue(res['isError'])
        self.assertIn('requires `read-write` scope', res['content'][0]['text'])
        body = modern('tools/call', {'name': 'get', 'arguments': {'path': STORE, 'collection': 'users', 'id': 9}})
        r = request(d, body=body, headers=headers_for(body), token=READER)
        self.assertEqual(r.json()['result']['structuredContent'], {'document': None})  # nothing was written

    def test_no_token_is_401_and_a_foreign_origin_403(self):
        d = self.d
        body = modern('server/discover')
        self.assertEqual(request(d, body=body, headers=headers_for(body), auth=False).status, 401)
        self.assertEqual(request(d, body=body, headers=headers_for(body), token='wrong-token-0123456789').status, 401)
        r = request(d, body=body, headers=headers_for(body, Origin='http://evil.example.com'), token=READER)
        self.assertEqual(r.status, 403)


def stdio(lines, *args):
    p = subprocess.run([BIN, 'mcp', *args], input='\n'.join(json.dumps(l) for l in lines) + '\n',
                       capture_output=True, text=True, timeout=30)
    return p.stdout.splitlines()


class Stdio(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='omgdb-modern-stdio-')
        cls.store = os.path.join(cls.tmp, 'store')  # its own: the daemon holds STORE's lock
        subprocess.run([BIN, 'create', cls.store], check=True, capture_output=True)
        subprocess.run([BIN, 'insert', cls.store, 'users', '{"_id": 1}'], check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_tools_list_for_2024_11_05_and_2025_03_26_is_byte_for_byte_the_pre_modern_output(self):
        # golden/tools_list_legacy.json: `omgdb mcp --scope dangerous` tools/list before this
        # revision was served (base a710cf7). Tools added later are not in it: every tool it has
        # must be byte for byte the same entry, in the same order, and no entry may gain a key.
        with open(os.path.join(HERE, 'golden', 'tools_list_legacy.json')) as f:
            golden = json.loads(f.read())['result']['tools']
        for version in ('2024-11-05', '2025-03-26'):
            out = stdio([{'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                          'params': {'protocolVersion': version, 'capabilities': {},
                                     'clientInfo': {'name': 'g', 'version': '1'}}},
                         {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
                         {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'}], '--scope', 'dangerous')
            line = out[1]
            tools = json.loads(line)['result']['tools']
            by_name = {t['name']: t for t in tools}
            order = [t['name'] for t in tools if t['name'] in {g['name'] for g in golden}]
            self.assertEqual(order, [g['name'] for g in golden], version)
            for g in golden:
                entry = json.dumps(g, separators=(',', ':'), ensure_ascii=False)
                self.assertIn(entry, line, g['name'])
                self.assertEqual(set(by_name[g['name']]), set(g), g['name'])
            for t in tools:
                self.assertNotIn('outputSchema', t)
                self.assertNotIn('_meta', t)

    def test_a_stdio_stream_serves_both_eras_and_unsupported_versions_get_32022(self):
        out = stdio([modern('server/discover', id=1),
                     modern('server/discover', id=2, meta={'io.modelcontextprotocol/protocolVersion': '1900-01-01'}),
                     {'jsonrpc': '2.0', 'id': 3, 'method': 'initialize',
                      'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                                 'clientInfo': {'name': 'g', 'version': '1'}}},
                     modern('ping', id=4)])
        replies = {json.loads(l)['id']: json.loads(l) for l in out}
        self.assertIn(V, replies[1]['result']['supportedVersions'])
        self.assertEqual(replies[2]['error']['code'], -32022)
        self.assertEqual(replies[3]['result']['protocolVersion'], '2025-11-25')
        self.assertEqual(replies[4]['error']['code'], -32601)

    def test_structured_content_is_sent_from_2025_06_18_on_and_not_before(self):
        for version, structured in (('2025-03-26', False), ('2025-06-18', True), ('2025-11-25', True)):
            out = stdio([{'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                          'params': {'protocolVersion': version, 'capabilities': {},
                                     'clientInfo': {'name': 'g', 'version': '1'}}},
                         {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call',
                          'params': {'name': 'list_collections', 'arguments': {'path': self.store}}}])
            res = json.loads(out[1])['result']
            self.assertEqual('structuredContent' in res, structured, version)
            self.assertNotIn('resultType', res)
            if structured:
                self.assertEqual(res['structuredContent'], {'items': ['users']})


if __name__ == '__main__':
    unittest.main()
