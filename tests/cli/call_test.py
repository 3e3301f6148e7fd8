"""`omgdb call TOOL ARGS`: one tool call from the shell, through the same decoder, scope
rule, bounds and result as an MCP client's tools/call, with an exit status per failure kind.

Usage: python3 tests/cli/call_test.py /path/to/omgdb   (standard library only)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BIN = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.environ['OMGDB_BIN']

# The documented mapping (docs/errors.md): 3 + the failure kind's index.
EXIT = {'invalid_argument': 3, 'not_found': 4, 'conflict': 5, 'busy': 6, 'cancelled': 7,
        'limit_exceeded': 8, 'unavailable': 9, 'corrupt': 10, 'io': 11, 'internal': 12,
        'permission_denied': 13}


class Call(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='omgdb-call-')
        # No config file is found and no OMGDB_ variable leaks in from the caller.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith('OMGDB_')}
        self.env.update({'HOME': self.tmp, 'XDG_CONFIG_HOME': os.path.join(self.tmp, 'xdg'),
                         'XDG_DATA_HOME': os.path.join(self.tmp, 'data')})
        self.store = os.path.join(self.tmp, 'app.omgdb')
        r = self.omgdb('create', self.store)
        self.assertEqual(r.returncode, 0, r.stderr)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def omgdb(self, *args, stdin=None):
        return subprocess.run([BIN, *args], capture_output=True, text=True, env=self.env, cwd=self.tmp,
                              input=stdin, timeout=60)

    def call(self, tool, args, *options, stdin=None):
        text = args if isinstance(args, str) else json.dumps(args)
        return self.omgdb('call', tool, text, *options, stdin=stdin)

    def mcp_result(self, tool, args, *options):
        """The `result` an MCP client gets from `omgdb mcp` over stdio for the same call."""
        messages = [
            {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
             'params': {'protocolVersion': '2025-06-18', 'capabilities': {}, 'clientInfo': {'name': 't', 'version': '1'}}},
            {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
            {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call', 'params': {'name': tool, 'arguments': args}},
        ]
        r = self.omgdb('mcp', *options, stdin=''.join(json.dumps(m) + '\n' for m in messages))
        for line in r.stdout.splitlines():
            msg = json.loads(line)
            if msg.get('id') == 2:
                return msg['result']
        self.fail('omgdb mcp did not answer: ' + r.stderr)

    def seed(self):
        docs = [{'_id': i, 'name': 'user %d' % i, 'age': 20 + i} for i in range(5)]
        r = self.call('insert_many', {'path': self.store, 'collection': 'users', 'documents': docs})
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_a_call_prints_the_text_an_mcp_client_reads_and_exits_0(self):
        self.seed()
        args = {'path': self.store, 'collection': 'users', 'filter': {'age': {'$gte': 23}}, 'sort': {'_id': 1}}
        r = self.call('find', args)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ['{"_id":3,"name":"user 3","age":23}',
                                                 '{"_id":4,"name":"user 4","age":24}'])
        mcp = self.mcp_result('find', args)
        self.assertEqual(r.stdout, ''.join(b['text'] if b['text'].endswith('\n') else b['text'] + '\n'
                                           for b in mcp['content']))

    def test_json_prints_the_mcp_result_object_byte_for_byte(self):
        self.seed()
        for tool, args in [('count_documents', {'path': self.store, 'collection': 'users', 'filter': {}}),
                           ('find', {'path': self.store, 'collection': 'users', 'limit': 2}),
                           ('get', {'path': self.store, 'collection': 'users', 'id': 99}),
                           ('find', {'path': self.store, 'collection': 'users', 'limit': 'two'})]:
            r = self.call(tool, args, '--json')
            got = json.loads(r.stdout)
            self.assertEqual(got, self.mcp_result(tool, args), tool)
        self.assertEqual(json.loads(self.call('count_documents', {'path': self.store, 'collection': 'users',
                                                                   'filter': {}}, '--json').stdout)
                         ['structuredContent'], {'count': 5})

    def test_the_scope_ceiling_is_the_servers_default_and_scope_raises_or_lowers_it(self):
        self.seed()
        drop = {'path': self.store, 'collection': 'users'}
        r = self.call('drop_collection', drop)
        self.assertEqual(r.returncode, EXIT['permission_denied'])
        self.assertEqual(r.stdout, '')
        self.assertIn('requires `dangerous` scope but this server runs with `read-write` scope', r.stderr)
        r = self.call('insert', {'path': self.store, 'collection': 'users', 'document': {'_id': 9}}, '--scope', 'read')
        self.assertEqual(r.returncode, EXIT['permission_denied'])
        self.assertIn('requires `read-write` scope', r.stderr)
        r = self.call('drop_collection', drop, '--scope', 'dangerous')
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.call('count_documents', {'path': self.store, 'collection': 'users', 'filter': {}})
        self.assertNotEqual(r.stdout.strip(), '{"count":5}')

    def test_omgdb_scope_in_the_environment_applies_as_it_does_to_omgdb_mcp(self):
        self.env['OMGDB_SCOPE'] = 'read'
        r = self.call('insert', {'path': self.store, 'collection': 'users', 'document': {'_id': 1}})
        self.assertEqual(r.returncode, EXIT['permission_denied'])
        self.assertIn('requires `read-write` scope but this server runs with `read` scope', r.stderr)

    def test_the_decoder_refuses_what_mcp_refuses_with_the_same_message(self):
        cases = [('find', {'path': self.store, 'collection': 'users', 'limit': 1.5}),
                 ('find', {'path': self.store, 'collection': 'users', 'bogus': 1}),
                 ('find', {'collection': 'users'}),
                 ('fnid', {'path': self.store})]
        for tool, args in cases:
            r = self.call(tool, args)
            want = 'not_found' if tool == 'fnid' else 'invalid_argument'
            self.assertEqual(r.returncode, EXIT[want], (tool, args, r.stderr))
            mcp = self.mcp_result(tool, args)
            self.assertTrue(mcp['isError'])
            self.assertEqual(r.stderr.strip(), mcp['content'][0]['text'])
        self.assertIn('unknown tool `fnid`', self.call('fnid', {}).stderr)

    def test_the_exit_status_says_the_failure_kind(self):
        self.seed()
        r = self.call('vsync', {'path': self.store, 'collection': 'users', 'field': 'name', 'model': 'nope'})
        self.assertEqual(r.returncode, EXIT['not_found'], r.stderr)
        self.assertIn('model `nope` is not installed', r.stderr)
        r = self.call('find', {'path': self.store, 'collection': 'users', 'limit': -1})
        self.assertEqual(r.returncode, EXIT['invalid_argument'], r.stderr)
        # A call that builds more than --call-memory allows (a 2 MiB string, 1 MiB allowed).
        r = self.call('aggregate', {'path': self.store, 'collection': 'users', 'pipeline': [
            {'$limit': 1}, {'$project': {'big': {'$reduce': {'input': {'$range': [0, 21]}, 'initialValue': 'x',
                                                               'in': {'$concat': ['$$value', '$$value']}}}}}]},
                      '--call-memory', '1048576')
        self.assertEqual(r.returncode, EXIT['limit_exceeded'], r.stderr)

    def test_every_tool_error_carries_its_kind_and_the_exit_status_follows_it(self):
        self.seed()
        cases = [
            # A declared bound: maxScannedDocuments and maxMutations refusals.
            ('update_many', {'path': self.store, 'collection': 'users', 'filter': {}, 'update': {'$set': {'x': 1}},
                             'maxScannedDocuments': 2}, 'limit_exceeded'),
            ('delete_many', {'path': self.store, 'collection': 'users', 'filter': {}, 'maxMutations': 1},
             'limit_exceeded'),
            # Something that does not exist: a collection, an index, a plan, a tool.
            ('drop_index', {'path': self.store, 'collection': 'nobody', 'name': 'x_1'}, 'not_found'),
            ('drop_index', {'path': self.store, 'collection': 'users', 'name': 'nope_1'}, 'not_found'),
            ('apply', {'path': self.store, 'token': 'f' * 32}, 'not_found'),
            ('no_such_tool', {}, 'not_found'),
            # What contradicts what exists.
            ('insert', {'path': self.store, 'collection': 'users', 'document': {'_id': 1}}, 'conflict'),
            # A malformed request.
            ('find', {'path': self.store, 'collection': 'users', 'filter': {'$bogus': 1}}, 'invalid_argument'),
        ]
        retryable = {'busy', 'cancelled', 'unavailable', 'io'}
        for tool, args, kind in cases:
            r = self.call(tool, args)
            self.assertEqual(r.returncode, EXIT[kind], (tool, r.stderr))
            mcp = self.mcp_result(tool, args)
            self.assertTrue(mcp['isError'], (tool, mcp))
            error = {'kind': kind, 'retryable': kind in retryable}
            self.assertEqual(mcp['_meta'], {'error': error}, tool)
            self.assertEqual(mcp['structuredContent'], {'error': error}, tool)  # 2025-06-18
        # A scope above the ceiling: permission_denied, whatever the message says.
        r = self.call('drop_collection', {'path': self.store, 'collection': 'users'}, '--scope', 'read-write')
        self.assertEqual(r.returncode, EXIT['permission_denied'], r.stderr)
        mcp = self.mcp_result('drop_collection', {'path': self.store, 'collection': 'users'}, '--scope', 'read')
        self.assertEqual(mcp['_meta']['error']['kind'], 'permission_denied')

    def test_arguments_come_from_stdin_with_a_dash_and_must_be_one_json_object(self):
        self.seed()
        r = self.omgdb('call', 'count_documents', '-',
                       stdin=json.dumps({'path': self.store, 'collection': 'users', 'filter': {'age': 21}}))
        self.assertEqual((r.returncode, r.stdout.strip()), (0, '{"count":1}'), r.stderr)
        r = self.call('count_documents', '{"path":')
        self.assertEqual(r.returncode, 2)
        self.assertIn('ARGS is not valid JSON', r.stderr)
        r = self.call('count_documents', '[1]')
        self.assertEqual(r.returncode, 2)
        self.assertIn('ARGS must be a JSON object', r.stderr)
        r = self.omgdb('call')
        self.assertEqual(r.returncode, 2)
        self.assertIn('TOOL is required', r.stderr)
        r = self.call('ping', {}, '--scope', 'admin')
        self.assertEqual(r.returncode, 2)
        self.assertIn('scope', r.stderr)

    def test_a_tool_without_arguments_takes_none(self):
        r = self.omgdb('call', 'list_collections', json.dumps({'path': self.store}))
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.omgdb('call', 'list_connections')
        self.assertIn(r.returncode, (0, EXIT['not_found']))  # not_found: no such tool
        self.assertEqual(r.returncode == 0, 'list_connections' in self.omgdb('tools').stdout)


if __name__ == '__main__':
    unittest.main(verbosity=2)
