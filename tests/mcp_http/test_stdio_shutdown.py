"""`omgdb mcp` on stdio, issue 29 item 3: SIGTERM ends the process within --shutdown-deadline
even while calls ignore their cancellation flag, keeping every acknowledged write; at the end
of stdin a call stuck past its own deadline by more than the shutdown deadline is abandoned
instead of holding the process forever. `test_ignores_cancellation` (--conformance-fixtures)
sleeps 30 s without polling its flag. Every wait is bounded."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from common import BIN, INIT, INITIALIZED, Proc, env_with_token

STUCK = 'test_ignores_cancellation'


def tool_call(rid, name, args=None):
    return {'jsonrpc': '2.0', 'id': rid, 'method': 'tools/call', 'params': {'name': name, 'arguments': args or {}}}


def start(*args):
    p = Proc([BIN, 'mcp', '--conformance-fixtures', *args], env_with_token(None), stdin=subprocess.PIPE,
             expect_url=False)
    p.call(INIT)
    p.send(INITIALIZED)
    return p


class StdioShutdown(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='omgdb-stdio-stop-')
        self.store = os.path.join(self.tmp, 'store')
        subprocess.run([BIN, 'create', self.store], check=True, capture_output=True, timeout=60)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_sigterm_ends_the_process_within_the_deadline_while_calls_ignore_their_flag(self):
        p = start('--shutdown-deadline', '1', '--workers', '3')
        try:
            r = p.call(tool_call(2, 'insert', {'path': self.store, 'collection': 'c', 'document': {'_id': 'kept'}}))
            self.assertFalse(r['result']['isError'], r)  # acknowledged before the SIGTERM
            p.send(tool_call(3, STUCK))
            p.send(tool_call(4, STUCK))
            time.sleep(0.5)
            started = time.monotonic()
            p.proc.send_signal(signal.SIGTERM)
            code = p.wait(15)
            took = time.monotonic() - started
            print('\n  measured: stdio SIGTERM to exit, two calls ignoring their flag, deadline 1 s: %.2f s' % took,
                  file=sys.stderr)
            self.assertEqual(code, 0, p.stderr()[-3000:])
            self.assertLess(took, 1 + 1.5, p.stderr()[-3000:])
        finally:
            p.kill()
        got = subprocess.run([BIN, 'get', self.store, 'c', 'kept'], capture_output=True, timeout=60)
        self.assertEqual(got.returncode, 0, got.stderr)
        self.assertEqual(json.loads(got.stdout)['_id'], 'kept')

    def test_end_of_input_abandons_a_call_stuck_past_its_deadline_by_the_shutdown_deadline(self):
        p = start('--shutdown-deadline', '1', '--call-timeout', '300')
        try:
            p.send(tool_call(2, STUCK))
            time.sleep(0.2)
            started = time.monotonic()
            p.proc.stdin.close()
            code = p.wait(15)
            took = time.monotonic() - started
            print('\n  measured: stdio end of input to exit, one call ignoring its flag: %.2f s' % took,
                  file=sys.stderr)
            self.assertEqual(code, 0, p.stderr()[-3000:])
            self.assertLess(took, 0.3 + 1 + 1.5, p.stderr()[-3000:])
            self.assertIn('it is abandoned', p.stderr())
        finally:
            p.kill()

    def test_end_of_input_still_answers_the_calls_that_finish(self):
        p = start('--shutdown-deadline', '1')
        try:
            p.send(tool_call(2, 'test_tool_with_progress'))
            p.proc.stdin.close()
            while True:
                m = p.receive(10)
                if m.get('id') == 2:
                    break
            self.assertFalse(m['result']['isError'], m)
            self.assertEqual(p.wait(15), 0)
        finally:
            p.kill()


if __name__ == '__main__':
    unittest.main()
