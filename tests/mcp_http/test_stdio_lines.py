"""`omgdb mcp` on stdio: lines the seed says to ignore are ignored with a warning naming the
line (issue 15 item 5), and a line over the 16 MiB limit is answered with its id when the id
precedes the cut (issue 16 item 9)."""
import json
import os
import re
import subprocess
import unittest

from common import BIN, env_with_token

LIMIT = 16 << 20


def run_stdio(data, timeout=60):
    p = subprocess.run([BIN, 'mcp'], input=data, capture_output=True, timeout=timeout, env=env_with_token(None))
    replies = [json.loads(line) for line in p.stdout.decode().splitlines() if line.strip()]
    return p.returncode, replies, p.stderr.decode('utf-8', 'replace')


class StdioLines(unittest.TestCase):
    def test_ignored_lines_are_logged_at_warning_level_with_their_line_number(self):
        lines = [b'NaN', b'[]', b'{"s":"\\ud800"}', b'{"s":"\xff\xfe"}', b'[' * 300 + b']' * 300,
                 b'{"jsonrpc":"2.0","id":1}', b'', b'{"jsonrpc":"2.0","id":7,"method":"ping"}']
        code, replies, err = run_stdio(b'\n'.join(lines) + b'\n')
        self.assertEqual(code, 0)
        self.assertEqual(replies, [{'jsonrpc': '2.0', 'id': 7, 'result': {}}])  # still ignored
        warned = [line for line in err.splitlines() if 'warning' in line and 'ignored input line' in line]
        numbers = [int(re.search(r'input line (\d+)', line).group(1)) for line in warned]
        self.assertEqual(numbers, [1, 2, 3, 4, 5, 6], err)

    def test_a_line_over_the_limit_is_answered_with_the_id_that_precedes_the_cut(self):
        head = b'{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"insert","arguments":{"x":"'
        big = head + b'a' * (LIMIT + 1024) + b'"}}}'
        cut_before_id = b'{"jsonrpc":"2.0","method":"tools/call","params":{"x":"' + b'a' * (LIMIT + (1 << 20)) + b'"},"id":9}'
        ping = b'{"jsonrpc":"2.0","id":3,"method":"ping"}'
        code, replies, err = run_stdio(big + b'\n' + cut_before_id + b'\n' + ping + b'\n')
        self.assertEqual(code, 0)
        self.assertEqual(len(replies), 3, replies)
        message = 'request too large: a line exceeds %d bytes' % LIMIT
        self.assertEqual(replies[0], {'jsonrpc': '2.0', 'id': 'big-1', 'error': {'code': -32600, 'message': message}})
        self.assertEqual(replies[1], {'jsonrpc': '2.0', 'error': {'code': -32600, 'message': message}})
        self.assertEqual(replies[2], {'jsonrpc': '2.0', 'id': 3, 'result': {}})
        self.assertIn('input line 1', err)
        self.assertIn('input line 2', err)


if __name__ == '__main__':
    unittest.main()
