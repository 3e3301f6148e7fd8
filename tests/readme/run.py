#!/usr/bin/env python3
"""The copy-paste path cannot rot: every shell block of README.md and docs/http.md marked
runnable is run, in order, against the built binary, as a new user would paste it.

A runnable block is a fenced ```sh block with the line `<!-- runnable -->` right before it
(blank lines between are allowed). The blocks of one document run in one bash (variables,
the working directory and background jobs carry over from block to block, as in a terminal)
with `set -eo pipefail`, in a scratch HOME with no XDG_* variables (so the data directory,
the token file and the state directory are the defaults under that HOME), the directory of
the binary first on PATH, and the working directory a scratch one. The daemon's port 41922
is replaced by a free one, so a `make run` on this machine does not interfere. Background
jobs are killed at the end.

A block fails when a command in it exits non-zero, or when its output carries an error reply
(a JSON-RPC `"error":{`, an `"isError":true` tool result, or HTTP 401 Unauthorized): the
README's examples must work, not merely run. Each block gets at most 60 s.

usage: run.py OMGDB_BINARY SOURCE_DIR
Prints one line per block and `N passed, M failed`; exit status 1 when a block failed or a
document has no runnable block.
"""
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

DOCUMENTS = ['README.md', 'docs/http.md']
MARKER = '<!-- runnable -->'
DEFAULT_PORT = '41922'
BLOCK_SECONDS = 60
ERROR_REPLY = re.compile(r'"error":\{|"isError":true|HTTP 401|401 Unauthorized')


def runnable_blocks(text):
    """(line number, code) of each ```sh block preceded by the marker."""
    lines = text.split('\n')
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == MARKER:
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j >= len(lines) or lines[j].strip() not in ('```sh', '```bash'):
                raise SystemExit(f'line {i + 1}: {MARKER} is not followed by a ```sh block')
            k = j + 1
            while k < len(lines) and lines[k].strip() != '```':
                k += 1
            blocks.append((j + 1, '\n'.join(lines[j + 1:k])))
            i = k
        i += 1
    return blocks


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return str(s.getsockname()[1])


def run_document(binary, path, blocks):
    """Runs the blocks in one bash; returns [(line, ok, output)]."""
    home = tempfile.mkdtemp(prefix='omgdb-readme-')
    work = os.path.join(home, 'work')
    os.makedirs(work)
    env = {k: v for k, v in os.environ.items() if not k.startswith(('OMGDB_', 'XDG_'))}
    env.update({'HOME': home, 'PATH': os.path.dirname(binary) + os.pathsep + env.get('PATH', ''),
                'OMGDB_LOG_LEVEL': 'warning'})
    port = free_port()
    results = []
    shell = subprocess.Popen(['bash', '--noprofile', '--norc'], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, cwd=work, env=env, text=True, start_new_session=True)
    try:
        for line, code in blocks:
            code = code.replace(DEFAULT_PORT, port)
            done = f'__omgdb_readme_block_done_{line}__'
            # A group, not a subshell: `cd`, exports and jobs persist. Under `set -e` a failing
            # command ends the shell, which read_until reports. Its stdin is not the script's.
            script = f'set -e -o pipefail\n{{\n{code}\n}} </dev/null\nset +e\necho; echo "{done} 0"\n'
            shell.stdin.write(script)
            shell.stdin.flush()
            output, status = read_until(shell, done)
            ok = status == 0 and not ERROR_REPLY.search(output)
            results.append((line, ok, output))
            if not ok:
                break
    finally:
        try:
            shell.stdin.write('kill $(jobs -p) 2>/dev/null; wait; exit 0\n')
            shell.stdin.flush()
            shell.wait(timeout=20)
        except Exception:
            os.killpg(shell.pid, signal.SIGKILL)
        shutil.rmtree(home, ignore_errors=True)
    return results


def read_until(shell, done):
    out = []
    deadline = BLOCK_SECONDS
    buf = ''
    fd = shell.stdout.fileno()
    while True:
        ready, _, _ = select.select([fd], [], [], deadline)
        if not ready:
            return ''.join(out) + buf + f'\n(no end after {BLOCK_SECONDS} s)', -1
        chunk = os.read(fd, 65536).decode('utf-8', 'replace')
        if not chunk:
            return ''.join(out) + buf + '\n(the shell exited)', -1
        buf += chunk
        m = re.search(re.escape(done) + r' (\d+)\n', buf)
        if m:
            return ''.join(out) + buf[:m.start()], int(m.group(1))


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    passed = failed = 0
    for doc in DOCUMENTS:
        with open(os.path.join(source, doc)) as f:
            blocks = runnable_blocks(f.read())
        if not blocks:
            print(f'FAIL {doc}: no block is marked {MARKER}')
            failed += 1
            continue
        results = run_document(binary, doc, blocks)
        for line, ok, output in results:
            print(f'{"ok  " if ok else "FAIL"} {doc}:{line}')
            if not ok:
                failed += 1
                print('  ' + output.strip().replace('\n', '\n  '))
            else:
                passed += 1
        for line, _ in blocks[len(results):]:
            print(f'SKIP {doc}:{line} (after a failed block)')
            failed += 1
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
