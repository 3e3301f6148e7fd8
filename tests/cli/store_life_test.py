"""A store's life from the command line (issue 31): `omgdb backup` of a store a daemon holds
(through its admin socket) and of a closed one, `restore`, `load` of a dump, `oplog trim`,
`oplog retention` and `doctor STORE`.

Usage: python3 tests/cli/store_life_test.py /path/to/omgdb   (standard library only)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

BIN = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.environ['OMGDB_BIN']


class StoreLife(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='omgdb-life-')
        self.env = {k: v for k, v in os.environ.items() if not k.startswith('OMGDB_')}
        self.env.update({'HOME': self.tmp, 'XDG_RUNTIME_DIR': os.path.join(self.tmp, 'run'),
                         'XDG_CONFIG_HOME': os.path.join(self.tmp, 'cfg')})
        os.makedirs(self.env['XDG_RUNTIME_DIR'], mode=0o700)
        self.store = os.path.join(self.tmp, 'app.omgdb')
        self.run_ok('create', self.store)
        for i in range(20):
            self.run_ok('insert', self.store, 'users', json.dumps({'_id': i, 'name': 'user %d' % i, 'n': i * 1.5}))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def omgdb(self, *args):
        return subprocess.run([BIN, *args], capture_output=True, text=True, env=self.env, timeout=120)

    def run_ok(self, *args):
        r = self.omgdb(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_backup_of_a_store_a_daemon_holds_goes_through_the_daemon_and_restores(self):
        daemon = subprocess.Popen([BIN, 'mcp'], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=self.env, text=True)
        try:
            call = {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
                    'params': {'name': 'count_documents', 'arguments': {'path': self.store, 'collection': 'users'}}}
            daemon.stdin.write(json.dumps(call) + '\n')
            daemon.stdin.flush()
            self.assertIn('"count', daemon.stdout.readline())
            held = self.omgdb('dump', self.store)
            self.assertEqual(held.returncode, 1)
            self.assertIn('in use by process %d' % daemon.pid, held.stderr)
            out = self.run_ok('backup', self.store, os.path.join(self.tmp, 'backups'), '--keep', '3')
            m = re.search(r'consistent at op-log seq (\d+)', out)
            self.assertIsNotNone(m, out)
            self.assertEqual(int(m.group(1)), 21)  # create_collection + 20 inserts
        finally:
            daemon.stdin.close()
            daemon.wait(timeout=30)
            daemon.stdout.close()
        restored = os.path.join(self.tmp, 'restored.omgdb')
        self.assertIn('op-log seq 21', self.run_ok('restore', os.path.join(self.tmp, 'backups'), restored))
        self.assertEqual(self.run_ok('dump', restored), self.run_ok('dump', self.store))
        again = self.omgdb('restore', os.path.join(self.tmp, 'backups'), restored)
        self.assertEqual(again.returncode, 1)
        self.assertIn('already exists', again.stderr)

    def test_dump_load_dump_is_byte_identical_from_the_command_line(self):
        first = self.run_ok('dump', self.store)
        path = os.path.join(self.tmp, 'dump.ndjson')
        with open(path, 'w') as f:
            f.write(first)
        copy = os.path.join(self.tmp, 'copy.omgdb')
        self.assertIn('loaded 20 document(s) in 1 collection(s)', self.run_ok('load', copy, path))
        self.assertEqual(self.run_ok('dump', copy), first)
        refused = self.omgdb('load', copy, path)
        self.assertEqual(refused.returncode, 1)
        self.assertIn('empty store', refused.stderr)

    def test_retention_trim_and_doctor(self):
        self.assertEqual(json.loads(self.run_ok('oplog', 'retention', self.store)),
                         {'maxBytes': 0, 'maxAgeSeconds': 30 * 24 * 3600})
        self.run_ok('oplog', 'retention', self.store, '--max-bytes', '600', '--max-age', '0')
        self.assertIn('would trim', self.run_ok('oplog', 'trim', self.store, '--dry-run'))
        out = self.run_ok('oplog', 'trim', self.store)
        m = re.search(r'starts after seq (\d+)', out)
        self.assertTrue(m and int(m.group(1)) > 0, out)
        verify = json.loads(self.run_ok('call', 'verify', json.dumps({'path': self.store})))
        self.assertTrue(verify.get('ok'), verify)
        doctor = self.run_ok('doctor', self.store)
        for part in ('live documents', 'indexes', 'op-log', 'search', 'vectors', 'retention would free'):
            self.assertIn(part, doctor)

    def test_the_write_budget_comes_from_the_config_file(self):
        config = os.path.join(self.tmp, 'omgdb.toml')
        with open(config, 'w') as f:
            f.write('[limits]\nwrite_budget_bytes = 1048576\n')
        docs = [{'_id': 'big%d' % i, 'blob': 'x' * 8192} for i in range(300)]  # ~2.5 MB in one call
        args = json.dumps({'path': self.store, 'collection': 'big', 'documents': docs})
        r = subprocess.run([BIN, 'call', 'insert_many', '-', '--config', config], input=args, capture_output=True,
                           text=True, env=self.env, timeout=120)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('write budget', r.stderr + r.stdout)
        r = subprocess.run([BIN, 'call', 'insert_many', '-'], input=args, capture_output=True, text=True,
                           env=self.env, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == '__main__':
    unittest.main()
