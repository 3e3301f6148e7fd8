"""Under systemd, omgdb's log entries go to the journal with structured fields.

A real journald is not available here, so the test plays it: in a private mount namespace
(`unshare -m`, root only; otherwise the test is skipped with status 77) it mounts a tmpfs on
/run/systemd, binds the journal's datagram socket there, runs `omgdb mcp` with stderr on a
pipe that JOURNAL_STREAM names, and decodes the native-protocol entries it receives. The
host's /run is never touched.

Usage: python3 tests/service/journal_test.py /path/to/omgdb
"""
import json
import os
import shutil
import socket
import struct
import subprocess
import sys

SKIP = 77


def decode(datagram):
    fields, data = {}, datagram
    while data:
        nl = data.index(b'\n')
        line = data[:nl]
        if b'=' in line:
            key, value = line.split(b'=', 1)
            data = data[nl + 1:]
        else:  # binary-safe form: KEY\n<u64 le length><value>\n
            key = line
            size = struct.unpack('<Q', data[nl + 1:nl + 9])[0]
            value = data[nl + 9:nl + 9 + size]
            data = data[nl + 10 + size:]
        fields[key.decode()] = value.decode()
    return fields


def inside(bin_path):
    subprocess.run(['mount', '-t', 'tmpfs', 'tmpfs', '/run/systemd'], check=True)
    os.makedirs('/run/systemd/journal')
    journal = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    journal.bind('/run/systemd/journal/socket')
    journal.settimeout(5)
    read_end, write_end = os.pipe()
    st = os.fstat(write_end)
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'HOME': '/nonexistent',
           'JOURNAL_STREAM': '%d:%d' % (st.st_dev, st.st_ino)}
    messages = [
        {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {}},
        {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
        {'jsonrpc': '2.0', 'id': 'r9', 'method': 'tools/call',
         'params': {'name': 'find', 'arguments': {'path': '/nonexistent/s.omgdb', 'collection': 'c',
                                                  'filter': {'k': 'value-never-logged'}}}},
    ]
    proc = subprocess.run([bin_path, 'mcp'], input=''.join(json.dumps(m) + '\n' for m in messages).encode(),
                          stdout=subprocess.PIPE, stderr=write_end, env=env, timeout=30)
    os.close(write_end)
    journal.settimeout(0.5)  # every entry was sent before the process exited
    stray = os.read(read_end, 65536)
    entries = []
    try:
        while True:
            entries.append(decode(journal.recv(65536)))
    except socket.timeout:
        pass
    failures = []
    if proc.returncode != 0:
        failures.append('omgdb mcp exited with %d' % proc.returncode)
    calls = [e for e in entries if e.get('OMGDB_TOOL') == 'find']
    if len(calls) != 1:
        failures.append('expected one journal entry for the call, got %r' % entries)
    else:
        e = calls[0]
        want = {'SYSLOG_IDENTIFIER': 'omgdb', 'PRIORITY': '6', 'OMGDB_SESSION': 'stdio',
                'OMGDB_OUTCOME': 'error', 'OMGDB_REQUEST_ID': '"r9"'}
        for k, v in want.items():
            if e.get(k) != v:
                failures.append('%s is %r, want %r' % (k, e.get(k), v))
        if 'OMGDB_DURATION_MS' not in e or 'find' not in e.get('MESSAGE', ''):
            failures.append('incomplete entry %r' % e)
    if not any('serving MCP on stdio' in e.get('MESSAGE', '') for e in entries):
        failures.append('plain log lines did not reach the journal: %r' % entries)
    everything = repr(entries) + stray.decode('utf-8', 'replace')
    if 'value-never-logged' in everything:
        failures.append('an argument value was logged')
    if stray.strip():
        failures.append('lines still went to stderr: %r' % stray)
    for f in failures:
        print('FAIL:', f)
    print('journal: %d entries, %s' % (len(entries), 'ok' if not failures else 'FAILED'))
    return 1 if failures else 0


def main():
    bin_path = os.path.abspath(sys.argv[1])
    if os.environ.get('OMGDB_JOURNAL_TEST_INSIDE') == '1':
        return inside(bin_path)
    if os.geteuid() != 0 or not shutil.which('unshare') or not os.path.isdir('/run/systemd'):
        print('journal: skipped (needs root, unshare and /run/systemd)')
        return SKIP
    env = dict(os.environ, OMGDB_JOURNAL_TEST_INSIDE='1')
    probe = subprocess.run(['unshare', '-m', '--propagation', 'private', 'true'], capture_output=True)
    if probe.returncode != 0:
        print('journal: skipped (unshare -m is not permitted here)')
        return SKIP
    return subprocess.run(['unshare', '-m', '--propagation', 'private', sys.executable, os.path.abspath(__file__),
                           bin_path], env=env, timeout=60).returncode


if __name__ == '__main__':
    sys.exit(main())
