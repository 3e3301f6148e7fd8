"""Setting omgdb up from the command line: `config example` and `config check`, the
standalone mode, `client-config` for each host, and `token new`.

Usage: python3 tests/cli/setup_test.py /path/to/omgdb   (standard library only)
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import unittest

BIN = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.environ['OMGDB_BIN']
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SECRET = 'sentinel-secret-token-0123456789'
INIT = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
        'params': {'protocolVersion': '2025-06-18', 'capabilities': {}, 'clientInfo': {'name': 't', 'version': '1'}}}


def run(*args, env=None, cwd=None, stdin=None):
    base = {k: v for k, v in os.environ.items() if not k.startswith('OMGDB_')}
    base.update(env or {})
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=base, cwd=cwd, input=stdin, timeout=60)


def mcp_transcript(args, messages, env=None, cwd=None):
    text = ''.join(json.dumps(m) + '\n' for m in messages)
    r = run('mcp', *args, env=env, cwd=cwd, stdin=text)
    return r, [json.loads(l) for l in r.stdout.splitlines() if l.strip()]


class ConfigCommands(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='omgdb-setup-')
        self.env = {'HOME': self.tmp, 'XDG_CONFIG_HOME': os.path.join(self.tmp, 'xdg')}

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, text):
        path = os.path.join(self.tmp, 'omgdb.toml')
        with open(path, 'w') as f:
            f.write(text)
        return path

    def test_the_example_is_the_committed_file_and_it_checks(self):
        r = run('config', 'example')
        self.assertEqual(r.returncode, 0)
        with open(os.path.join(SRC, 'config', 'omgdb.toml')) as f:
            self.assertEqual(r.stdout, f.read())
        r = run('config', 'check', '--config', self.write(r.stdout), env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('OK', r.stdout)

    def test_config_check_takes_the_file_as_a_positional_argument(self):
        path = self.write('scope = "read"\n')
        r = run('config', 'check', path, env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('config: ' + path, r.stdout)
        self.assertIn('scope: read', r.stdout)
        r = run('config', 'check', path, '--config', path, env=self.env)
        self.assertEqual(r.returncode, 2)

    def test_with_no_roots_config_check_names_the_data_directory_http_is_confined_to(self):
        r = run('config', 'check', self.write(''), env=self.env)
        self.assertIn('store roots: none (over HTTP: confined to the data directory '
                      + os.path.join(self.tmp, '.local', 'share', 'omgdb'), r.stdout)
        r = run('config', 'check', self.write('[stores]\nunconfined = true\n'), env=self.env)
        self.assertIn('not confined, [stores] unconfined = true', r.stdout)

    def test_a_bad_file_is_reported_with_line_and_column(self):
        path = self.write('scope = "read"\n[http]\nlisten = "127.0.0.1:1"\nlissten = 2\n')
        r = run('config', 'check', '--config', path, env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertIn(path + ':4:1: unknown key `http.lissten`', r.stderr)

    def test_a_missing_environment_variable_is_named(self):
        path = self.write('[[connections]]\nname = "a"\ndialect = "postgres"\nhost = "h"\nuser = "u"\n'
                          'password = "${env:OMGDB_TEST_NOT_SET}"\n')
        r = run('config', 'check', '--config', path, env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertIn('OMGDB_TEST_NOT_SET is not set', r.stderr)

    def test_the_environment_overrides_the_file_and_the_xdg_file_is_found(self):
        os.makedirs(os.path.join(self.tmp, 'xdg', 'omgdb'))
        with open(os.path.join(self.tmp, 'xdg', 'omgdb', 'omgdb.toml'), 'w') as f:
            f.write('scope = "dangerous"\n')
        r = run('config', 'check', env=self.env)
        self.assertIn('scope: dangerous', r.stdout)
        r = run('config', 'check', env=dict(self.env, OMGDB_SCOPE='read'))
        self.assertIn('scope: read', r.stdout)

    def test_the_command_line_beats_the_environment_which_beats_the_file(self):
        path = self.write('scope = "dangerous"\n')
        listing = [INIT, {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
                   {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list', 'params': {}}]

        def names(args, env):
            _, replies = mcp_transcript(['--config', path, *args], listing, env=dict(self.env, **env))
            return {t['name'] for t in replies[1]['result']['tools']}

        self.assertIn('drop_collection', names([], {}))                        # the file
        file_env = names([], {'OMGDB_SCOPE': 'read-write'})                    # the environment
        self.assertNotIn('drop_collection', file_env)
        self.assertIn('insert', file_env)
        self.assertNotIn('insert', names(['--scope', 'read'], {'OMGDB_SCOPE': 'read-write'}))  # the command line

    def test_each_tool_call_leaves_one_log_line_without_argument_values(self):
        calls = [INIT, {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
                 {'jsonrpc': '2.0', 'id': 'req-7', 'method': 'tools/call',
                  'params': {'name': 'find', 'arguments': {'path': 'nope.omgdb', 'collection': 'c',
                                                           'filter': {'secret': 'argument-value-xyz'}}}}]
        r, replies = mcp_transcript([], calls, env=dict(self.env, OMGDB_LOG_FORMAT='json'), cwd=self.tmp)
        lines = [json.loads(l) for l in r.stderr.splitlines() if l.startswith('{')]
        tool_lines = [l for l in lines if l.get('tool') == 'find']
        self.assertEqual(len(tool_lines), 1, r.stderr)
        self.assertEqual(tool_lines[0]['request_id'], '"req-7"')
        self.assertEqual(tool_lines[0]['session'], 'stdio')
        self.assertEqual(tool_lines[0]['outcome'], 'error')
        self.assertNotIn('argument-value-xyz', r.stderr)

    def test_a_missing_config_file_is_an_error(self):
        r = run('config', 'check', '--config', os.path.join(self.tmp, 'nope.toml'), env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertIn('no such config file', r.stderr)

    def test_passwords_are_never_printed_by_config_check(self):
        path = self.write('[[connections]]\nname = "a"\ndialect = "postgres"\nhost = "h"\nuser = "u"\n'
                          'password = "${env:OMGDB_TEST_PW}"\n')
        r = run('config', 'check', '--config', path, env=dict(self.env, OMGDB_TEST_PW=SECRET))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn(SECRET, r.stdout + r.stderr)


def with_sql_connection(directory):
    """A config file with one SQLite connection: the server standalone mode stands in for."""
    lite = os.path.join(directory, 'lite.sqlite')
    open(lite, 'w').close()
    cfg = os.path.join(directory, 'omgdb.toml')
    with open(cfg, 'w') as f:
        f.write('[[connections]]\nname = "lite"\ndialect = "sqlite"\nfile = "%s"\n' % lite)
    return cfg


class Standalone(unittest.TestCase):
    def test_standalone_lists_the_eight_sql_tools_of_seed_003(self):
        listing = [INIT, {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list', 'params': {}},
                   {'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call', 'params': {'name': 'getActiveSql', 'arguments': {}}}]
        empty = tempfile.mkdtemp(prefix='omgdb-empty-')
        try:
            env = {'HOME': empty, 'XDG_CONFIG_HOME': empty, 'XDG_STATE_HOME': empty}
            r, alone = mcp_transcript(['--standalone'], listing, env=env, cwd=empty)
            self.assertEqual(r.returncode, 0, r.stderr)
            names = [t['name'] for t in alone[1]['result']['tools']]
            for name in ('getActiveSql', 'getActiveConnectionContext', 'getSchemaSummary', 'getTableIndexes',
                         'explainSql', 'getLatestSqlExecutionError', 'proposeSqlEdit', 'executeSql'):
                self.assertIn(name, names)
            self.assertTrue(alone[2]['result']['isError'])
            self.assertIn('unavailable', alone[2]['result']['content'][0]['text'])
        finally:
            shutil.rmtree(empty, ignore_errors=True)

    def test_the_catalogue_is_the_normal_one_and_calls_touch_nothing(self):
        listing = [INIT, {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
                   {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list', 'params': {}}]
        empty = tempfile.mkdtemp(prefix='omgdb-empty-')
        try:
            env = {'HOME': empty, 'XDG_CONFIG_HOME': empty, 'XDG_STATE_HOME': empty}
            # The server standalone mode stands in for: one with a SQL connection (its own
            # directories: it keeps worksheets).
            other = tempfile.mkdtemp(prefix='omgdb-normal-')
            other_env = {'HOME': other, 'XDG_CONFIG_HOME': other, 'XDG_STATE_HOME': other}
            _, normal = mcp_transcript(['--scope', 'dangerous', '--config', with_sql_connection(other)], listing,
                                       env=other_env)
            shutil.rmtree(other, ignore_errors=True)
            os.chmod(empty, 0o555)
            calls = [{'jsonrpc': '2.0', 'id': 10 + i, 'method': 'tools/call', 'params': {'name': name, 'arguments': args}}
                     for i, (name, args) in enumerate([
                         ('insert', {'path': 'x.omgdb', 'collection': 'c', 'document': {'a': 1}}),
                         ('find', {'path': '/etc', 'collection': 'c'}),
                         ('drop_collection', {'path': 'x.omgdb', 'collection': 'c'})])]
            r, alone = mcp_transcript(['--standalone', '--scope', 'dangerous'], listing + calls, env=env, cwd=empty)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(normal[1]['result']['tools'], alone[1]['result']['tools'])
            for reply in alone[2:]:
                self.assertTrue(reply['result']['isError'])
                self.assertIn('unavailable', reply['result']['content'][0]['text'])
            self.assertEqual(os.listdir(empty), [])
            r, by_env = mcp_transcript(['--scope', 'dangerous'], listing, env=dict(env, OMGDB_MCP_STANDALONE='1'),
                                       cwd=empty)
            self.assertIn('standalone', r.stderr)
            self.assertEqual(by_env[1]['result']['tools'], alone[1]['result']['tools'])
            self.assertEqual(os.listdir(empty), [])
        finally:
            os.chmod(empty, 0o755)
            shutil.rmtree(empty, ignore_errors=True)

    def test_standalone_lists_what_the_normal_server_lists_at_the_same_scope(self):
        listing = [INIT, {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list', 'params': {}}]
        empty = tempfile.mkdtemp(prefix='omgdb-empty-')
        config_dir = tempfile.mkdtemp(prefix='omgdb-cfg-')
        env = {'HOME': empty, 'XDG_CONFIG_HOME': empty, 'XDG_STATE_HOME': empty}
        names = lambda replies: [t['name'] for t in replies[1]['result']['tools']]
        config_env = {'HOME': config_dir, 'XDG_CONFIG_HOME': config_dir, 'XDG_STATE_HOME': config_dir}
        for scope in ([], ['--scope', 'read'], ['--scope', 'read-write']):
            _, normal = mcp_transcript(scope + ['--config', with_sql_connection(config_dir)], listing, env=config_env)
            r, alone = mcp_transcript(['--standalone'] + scope, listing, env=env, cwd=empty)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(normal[1]['result']['tools'], alone[1]['result']['tools'], scope)
            self.assertNotIn('drop_collection', names(alone))
        shutil.rmtree(config_dir, ignore_errors=True)
        _, by_env = mcp_transcript(['--standalone'], listing, env=dict(env, OMGDB_SCOPE='read'), cwd=empty)
        self.assertNotIn('insert', names(by_env))
        shutil.rmtree(empty, ignore_errors=True)

    def test_standalone_refuses_http_via_and_a_config(self):
        for extra in (['--http', '127.0.0.1:0'], ['--via', 'http://127.0.0.1:1/mcp'], ['--config', '/etc/omgdb/x.toml']):
            r = run('mcp', '--standalone', *extra, stdin='')
            self.assertEqual(r.returncode, 2, extra)
            self.assertIn('cannot be combined with ' + extra[0], r.stderr)
            self.assertEqual(r.stdout, '')


class ClientConfig(unittest.TestCase):
    def test_every_host_gets_a_snippet_in_its_format_without_the_token(self):
        for client in ('claude-desktop', 'claude-code', 'codex', 'cursor'):
            for url in (None, 'http://127.0.0.1:41922/mcp'):
                args = ['client-config', '--client', client] + (['--http', url] if url else [])
                r = run(*args, env={'OMGDB_HTTP_TOKEN': SECRET})
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertNotIn(SECRET, r.stdout + r.stderr)
                if client == 'codex':
                    entry = tomllib.loads(r.stdout)['mcp_servers']['omgdb']
                else:
                    entry = json.loads(r.stdout)['mcpServers']['omgdb']
                if url is None:
                    self.assertEqual(entry['command'], BIN)
                    self.assertEqual(entry['args'], ['mcp'])
                elif client == 'codex':
                    self.assertEqual(entry['url'], url)
                    self.assertEqual(entry['bearer_token_env_var'], 'OMGDB_HTTP_TOKEN')
                elif client == 'claude-desktop':
                    self.assertIn(url, entry['args'])
                else:
                    self.assertEqual(entry['url'], url)
                    self.assertIn('OMGDB_HTTP_TOKEN', entry['headers']['Authorization'])

    def test_an_unknown_host_or_url_is_refused(self):
        self.assertNotEqual(run('client-config', '--client', 'vim').returncode, 0)
        self.assertEqual(run('client-config', '--client', 'cursor', '--http', 'ftp://x').returncode, 2)


class Doctor(unittest.TestCase):
    def test_doctor_names_each_problem_and_its_fix_without_secrets(self):
        import socket
        tmp = tempfile.mkdtemp(prefix='omgdb-doctor-')
        try:
            busy = socket.socket()
            busy.bind(('127.0.0.1', 0))
            busy.listen(1)
            port = busy.getsockname()[1]
            closed = socket.socket()
            closed.bind(('127.0.0.1', 0))
            dead_port = closed.getsockname()[1]
            closed.close()
            lite = os.path.join(tmp, 'ok.sqlite')
            open(lite, 'w').close()
            os.makedirs(os.path.join(tmp, 'root'))
            cfg = os.path.join(tmp, 'omgdb.toml')
            with open(cfg, 'w') as f:
                f.write('[stores]\nroots = ["%s", "%s"]\n[http]\nlisten = "127.0.0.1:%d"\n'
                        '[[connections]]\nname = "pg"\ndialect = "postgres"\nhost = "127.0.0.1"\nport = %d\n'
                        'user = "u"\npassword = "${env:OMGDB_TEST_PW}"\n'
                        '[[connections]]\nname = "lite"\ndialect = "sqlite"\nfile = "%s"\n'
                        % (os.path.join(tmp, 'root'), os.path.join(tmp, 'missing'), port, dead_port, lite))
            r = run('doctor', '--config', cfg, env={'HOME': tmp, 'OMGDB_TEST_PW': SECRET, 'OMGDB_HTTP_TOKEN': 'aaaaaaaaaaaaaaaa'})
            busy.close()
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            out = r.stdout
            self.assertIn('ok    store root ' + os.path.join(tmp, 'root'), out)
            self.assertIn('FAIL  store root ' + os.path.join(tmp, 'missing') + ' is not a directory', out)
            self.assertIn('cannot bind 127.0.0.1:%d' % port, out)
            self.assertIn('FAIL  connection `pg` (postgres): cannot connect to 127.0.0.1:%d' % dead_port, out)
            self.assertIn('ok    connection `lite` (sqlite)', out)
            self.assertIn('OMGDB_HTTP_TOKEN is weak', out)
            self.assertIn('fix:', out)
            self.assertNotIn(SECRET, out + r.stderr)
            self.assertNotIn('literally', out)  # the password is an ${env:} reference
            with open(cfg, 'a') as f:
                f.write('[[http.tokens]]\nname = "x"\nvalue = "literal-token-0123456789"\n')
            os.chmod(cfg, 0o644)
            r = run('doctor', '--config', cfg, env={'HOME': tmp, 'OMGDB_TEST_PW': SECRET})
            self.assertIn('holds a password or token literally and others can read it', r.stdout)
            self.assertNotIn('literal-token-0123456789', r.stdout + r.stderr)
            self.assertNotIn('aaaaaaaaaaaaaaaa', out + r.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class MakeRunSetup(unittest.TestCase):
    """What `make run` sets up (a token file, the default store in the data directory) is what
    `omgdb doctor` checks and what `omgdb serve` confines itself to."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='omgdb-makerun-')
        self.env = {'HOME': self.tmp, 'XDG_CONFIG_HOME': os.path.join(self.tmp, 'xdg'),
                    'XDG_STATE_HOME': os.path.join(self.tmp, 'state')}
        self.data = os.path.join(self.tmp, '.local', 'share', 'omgdb')

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_doctor_finds_the_token_file_make_run_creates(self):
        r = run('doctor', env=self.env)
        self.assertIn('no bearer token', r.stdout)
        os.makedirs(os.path.join(self.tmp, '.config', 'omgdb'))
        token_file = os.path.join(self.tmp, '.config', 'omgdb', 'http-token')
        token = run('token', 'new').stdout.strip()
        with open(token_file, 'w') as f:
            f.write(token + '\n')
        os.chmod(token_file, 0o600)
        r = run('doctor', env=self.env)
        self.assertNotIn('no bearer token', r.stdout)
        self.assertIn('ok    bearer token in ' + token_file, r.stdout)
        self.assertIn('confined to the data directory ' + self.data, r.stdout)
        self.assertNotIn(token, r.stdout + r.stderr)

    def serve(self, *args):
        env = dict(self.env, OMGDB_HTTP_TOKEN=SECRET)
        base = {k: v for k, v in os.environ.items() if not k.startswith('OMGDB_')}
        base.update(env)
        proc = subprocess.Popen([BIN, 'serve', '--listen', '127.0.0.1:0', *args], env=base,
                                stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if line.startswith('omgdb: scope '):
                break
        url = next(l.split('listening on ', 1)[1].split()[0] for l in lines if 'listening on ' in l)
        return proc, url, ''.join(lines)

    def call_tool(self, url, name, arguments):
        import urllib.request

        def post(body, sid=None):
            h = {'Authorization': 'Bearer ' + SECRET, 'Content-Type': 'application/json',
                 'Accept': 'application/json, text/event-stream'}
            if sid:
                h['Mcp-Session-Id'] = sid
            req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=h, method='POST')
            with urllib.request.urlopen(req, timeout=20) as resp:
                return resp.headers.get('Mcp-Session-Id'), resp.read().decode()
        sid, _ = post(INIT)
        post({'jsonrpc': '2.0', 'method': 'notifications/initialized'}, sid)
        _, text = post({'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call',
                        'params': {'name': name, 'arguments': arguments}}, sid)
        if text.startswith('event:') or text.startswith('data:') or text.startswith('id:'):
            text = next(l[5:] for l in text.splitlines() if l.startswith('data:'))
        return json.loads(text)['result']['content'][0]['text']

    def test_serve_without_roots_confines_stores_and_files_to_the_data_directory(self):
        outside = os.path.join(self.tmp, 'elsewhere.omgdb')
        self.assertEqual(run('create', outside).returncode, 0)
        proc, url, startup = self.serve()
        try:
            self.assertIn('omgdb: stores and imported files are confined to the data directory ' + self.data, startup)
            text = self.call_tool(url, 'inspect', {'path': outside})
            self.assertIn('store path `%s` is outside the store roots' % outside, text)
            # An HTTP client is not told the server's absolute directories (issue 16, item 13).
            self.assertNotIn(self.data, text)
            self.assertIn('stores live under the store root', text)
            text = self.call_tool(url, 'import_jsonl', {'path': 'default.omgdb', 'collection': 'x', 'file': '/etc/passwd'})
            self.assertIn('file `/etc/passwd` is outside the store roots; files are read only from under the store root',
                          text)
            self.assertNotIn(self.data, text)
            self.assertNotIn('store path', text)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
            proc.stderr.close()

    def test_opening_the_whole_machine_is_an_explicit_setting(self):
        outside = os.path.join(self.tmp, 'elsewhere.omgdb')
        self.assertEqual(run('create', outside).returncode, 0)
        proc, url, startup = self.serve('--unconfined-stores')
        try:
            self.assertIn('WARNING: [stores] unconfined = true', startup)
            text = self.call_tool(url, 'inspect', {'path': outside})
            self.assertIn('"collections":[]', text)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
            proc.stderr.close()


class TokenNew(unittest.TestCase):
    def test_the_config_entry_holds_the_hash_of_the_printed_token(self):
        r = run('token', 'new', '--name', 'laptop', '--scope', 'read')
        self.assertEqual(r.returncode, 0)
        token = r.stdout.strip()
        self.assertGreaterEqual(len(token), 43)
        entry = tomllib.loads(r.stderr.split('config file:', 1)[1].split('Clients send', 1)[0])['http']['tokens'][0]
        self.assertEqual(entry, {'name': 'laptop', 'sha256': hashlib.sha256(token.encode()).hexdigest(), 'scope': 'read'})

    def test_a_bad_name_or_scope_is_refused(self):
        self.assertEqual(run('token', 'new', '--name', 'a b').returncode, 2)
        self.assertEqual(run('token', 'new', '--scope', 'root').returncode, 2)


if __name__ == '__main__':
    unittest.main(verbosity=2)
