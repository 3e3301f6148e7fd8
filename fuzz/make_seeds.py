#!/usr/bin/env python3
"""Writes the seed corpora fuzz/corpus/<target>/ from the repository's own test inputs.

  python3 fuzz/make_seeds.py            (from the repository root; rewrites the seeds)

Sources: the JSON-RPC transcripts (tests/transcripts), the engine tests' JSON literals
(tests/engine: filters, updates, pipelines, documents), the SQL corpus (tests/sql/corpus),
the example config and the loader tests' TOML (config/, tests/config), request heads in the
shape of tests/http's, and BSON documents and op-log records encoded from the transcripts'
documents. Each seed is named by the SHA-1 of its bytes, as libFuzzer names its own.
"""
import hashlib
import json
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, 'fuzz', 'corpus')
LIMIT = 400  # seeds per target


def put(target, data, seen={}):
    if isinstance(data, str):
        data = data.encode()
    if not data or len(data) > 8192:
        return
    names = seen.setdefault(target, set())
    if len(names) >= LIMIT:
        return
    name = hashlib.sha1(data).hexdigest()
    if name in names:
        return
    names.add(name)
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def compact(v):
    return json.dumps(v, separators=(',', ':'), ensure_ascii=False)


def read(path):
    with open(os.path.join(ROOT, path), encoding='utf-8') as f:
        return f.read()


def listdir(path, suffix):
    d = os.path.join(ROOT, path)
    return sorted(os.path.join(path, n) for n in os.listdir(d) if n.endswith(suffix))


# --- JSON values found in the tests ------------------------------------------------------
filters, updates, pipelines, documents = [], [], [], []


def walk_args(args):
    for key, v in args.items():
        if key in ('filter', 'query') and isinstance(v, dict):
            filters.append(v)
        elif key == 'update' and isinstance(v, dict):
            updates.append(v)
        elif key == 'pipeline' and isinstance(v, list):
            pipelines.append(v)
        elif key in ('document', 'replacement') and isinstance(v, dict):
            documents.append(v)
        elif key == 'documents' and isinstance(v, list):
            documents.extend(d for d in v if isinstance(d, dict))


transcripts = listdir('tests/transcripts', '.txt')
for path in transcripts:
    lines = [l[2:] for l in read(path).splitlines() if l.startswith('> ')]
    for i in range(0, len(lines), 24):
        put('rpc_session', '\n'.join(lines[i:i + 24]) + '\n')
    for l in lines:
        try:
            msg = json.loads(l)
        except ValueError:
            continue
        args = msg.get('params', {}).get('arguments') if isinstance(msg, dict) and isinstance(msg.get('params'), dict) else None
        if isinstance(args, dict):
            walk_args(args)

RAW = re.compile(r'R"\((.*?)\)"', re.S)
for folder in ('tests/engine/query', 'tests/engine/update', 'tests/engine/aggregate', 'tests/engine/value',
               'tests/engine/bson', 'tests/engine/store'):
    for path in listdir(folder, '.cpp') + listdir(folder, '.hpp'):
        for text in RAW.findall(read(path)):
            try:
                v = json.loads(text)
            except ValueError:
                continue
            if isinstance(v, list) and v and all(isinstance(s, dict) and len(s) == 1 and next(iter(s)).startswith('$') for s in v):
                pipelines.append(v)
            elif isinstance(v, list):
                documents.extend(d for d in v if isinstance(d, dict))
            elif isinstance(v, dict):
                ops = [k for k in v if k.startswith('$')]
                if ops and all(k in ('$set', '$unset', '$inc', '$mul', '$min', '$max', '$rename', '$currentDate',
                                      '$setOnInsert', '$bit', '$push', '$addToSet', '$pop', '$pull', '$pullAll')
                               for k in ops):
                    updates.append(v)
                elif 'update' in folder:
                    documents.append(v)
                else:
                    filters.append(v)
                    documents.append(v)

docs_lines = [compact(d) for d in documents[:40]]
for i, f in enumerate(filters):
    put('filter_match', '\n'.join([compact(f)] + docs_lines[i % 5::7][:6]) + '\n')
for i, u in enumerate(updates):
    put('update_apply', '\n'.join([compact(u), '[]'] + docs_lines[i % 5::7][:6]) + '\n')
for i, p in enumerate(pipelines):
    put('aggregate', '\n'.join([compact(p)] + docs_lines[i % 3::5][:8]) + '\n')
for v in documents + filters + updates:
    put('ejson_bson', compact(v))
for v in ('{"$oid":"5f1d7f3e9b1e8b3a4c2d1e0f"}', '{"$date":"2024-01-02T03:04:05.678Z"}', '{"$date":{"$numberLong":"-1"}}',
          '{"$numberDecimal":"1.10"}', '{"$numberDouble":"-0.0"}', '{"$numberDouble":"NaN"}', '{"$numberLong":"9223372036854775807"}',
          '{"$binary":{"base64":"AQI=","subType":"04"}}', '{"$uuid":"00112233-4455-6677-8899-aabbccddeeff"}',
          '{"$regularExpression":{"pattern":"^a","options":"im"}}', '{"$timestamp":{"t":5,"i":1}}', '{"$minKey":1}',
          '{"$maxKey":1}', '{"a":[1,2.5,"x",null,true,{"b":{"$numberInt":"3"}}]}', '[[[[[]]]]]'):
    put('ejson_bson', v)

# --- SQL: the classifier corpus, unescaped --------------------------------------------------
def unescape(s):
    return re.sub(r'\\(.)', lambda m: {'n': '\n', 'r': '\r', 't': '\t', '\\': '\\'}.get(m.group(1), '\\' + m.group(1)), s)


for path in ('tests/sql/corpus/bypass.tsv', 'tests/sql/corpus/benign.tsv'):
    for line in read(path).splitlines():
        if not line or line.startswith('#'):
            continue
        parts = line.split('\t')
        if len(parts) >= 3:
            put('sql_classify', unescape(parts[2]))

# --- TOML: the example config and the loader tests' texts ----------------------------------
put('toml_config', read('config/omgdb.toml'))
for path in listdir('tests/config', '.cpp'):
    for text in RAW.findall(read(path)):
        if '=' in text or '[' in text:
            put('toml_config', text)

STRING = re.compile(r'load_string\("((?:[^"\\]|\\.)*)"')
for path in listdir('tests/config', '.cpp'):
    for text in STRING.findall(read(path)):
        put('toml_config', unescape(text).replace('\\"', '"'))
example = read('config/omgdb.toml')
uncommented = re.sub(r'^# ?(\[|[a-z_]+ *=)', r'\1', example, flags=re.M)
put('toml_config', uncommented)
for section in re.split(r'\n(?=\[)', uncommented):
    put('toml_config', section)

# --- HTTP request heads ----------------------------------------------------------------------
TOKEN = '0123456789abcdef0123456789abcdef0123456789abcdef'
heads = [
    ['POST /mcp HTTP/1.1', 'Host: 127.0.0.1:41922', 'Authorization: Bearer ' + TOKEN, 'Content-Type: application/json',
     'Accept: application/json, text/event-stream', 'Content-Length: 42'],
    ['POST /mcp HTTP/1.1', 'Host: localhost:41922', 'Authorization: Bearer ' + TOKEN, 'Content-Type: application/json; charset=utf-8',
     'Accept: */*', 'Mcp-Session-Id: 0123456789abcdef0123456789abcdef', 'MCP-Protocol-Version: 2025-06-18', 'Content-Length: 10'],
    ['GET /mcp HTTP/1.1', 'Host: [::1]:41922', 'Authorization: bearer ' + TOKEN, 'Accept: text/event-stream',
     'Mcp-Session-Id: abc', 'Last-Event-ID: 17'],
    ['DELETE /mcp HTTP/1.1', 'Host: 127.0.0.1:41922', 'Authorization: Bearer ' + TOKEN, 'Mcp-Session-Id: abc'],
    ['OPTIONS /mcp HTTP/1.1', 'Host: tunnel.example', 'Origin: https://tunnel.example', 'Access-Control-Request-Method: POST'],
    ['POST /mcp?access_token=x HTTP/1.1', 'Host: 127.0.0.1:41922', 'Origin: http://evil.example', 'Content-Type: text/plain'],
    ['POST /mcp HTTP/1.0', 'Host: 127.0.0.1', 'Transfer-Encoding: gzip, chunked', 'Content-Length: 5'],
    ['POST /mcp HTTP/1.1', 'Host: 127.0.0.1:8080', 'Transfer-Encoding: chunked', 'Authorization: Basic dXNlcjpwYXNz'],
    ['GET /healthz HTTP/1.1', 'Host: 127.0.0.1:41922'],
    ['GET /metrics HTTP/1.1', 'Host: localhost', 'Authorization: Bearer ' + TOKEN, 'Connection: close'],
    ['HEAD /metrics HTTP/1.1', 'Host: 127.0.0.2:41922', 'Origin: null'],
    ['POST /mcp HTTP/1.1', 'Host: 127.0.0.1:41922', 'Authorization: Bearer ' + TOKEN, 'Content-Type: application/json',
     'MCP-Protocol-Version: 2026-07-28', 'Mcp-Method: tools/call', 'Mcp-Name: find', 'Content-Length: 99'],
]
# Last-Event-ID: a resume point, and every way it is not one.
for last in ['0', '007', '9999999999999999999', '18446744073709551615', '18446744073709551616', '-1', '+5', ' 5',
             '5 ', '1e3', '0x10', '', '\u0661']:
    heads.append(['GET /mcp HTTP/1.1', 'Host: 127.0.0.1:41922', 'Authorization: Bearer ' + TOKEN,
                  'Accept: text/event-stream', 'Mcp-Session-Id: 0123456789abcdef0123456789abcdef', 'Last-Event-ID: ' + last])
for h in heads:
    put('http_screen', '\r\n'.join(h) + '\r\n\r\n')
# Through the session table: `$SESSION` is the fuzz table's open session.
AUTH = 'Authorization: Bearer ' + TOKEN
for method, extra, body in [
        ('POST', ['Mcp-Session-Id: $SESSION', 'MCP-Protocol-Version: 2025-11-25'], '{"jsonrpc":"2.0","id":2,"method":"ping"}'),
        ('POST', ['Mcp-Session-Id: $SESSION'], '{"jsonrpc":"2.0","id":3,"method":"tools/list"}'),
        ('POST', ['Mcp-Session-Id: $SESSION'], '{"jsonrpc":"2.0","method":"notifications/initialized"}'),
        ('POST', [], '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}'),
        ('POST', ['Mcp-Session-Id: nope'], '{"jsonrpc":"2.0","id":4,"method":"ping"}'),
        ('POST', ['MCP-Protocol-Version: 2026-07-28', 'Mcp-Method: tools/list'],
         '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'),
        ('POST', ['MCP-Protocol-Version: 2026-07-28', 'Mcp-Method: tools/call', 'Mcp-Name: =?base64?ZmluZA==?='],
         '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"find","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'),
        ('POST', ['Mcp-Session-Id: $SESSION'], '[{"jsonrpc":"2.0","id":7,"method":"ping"}]'),
        ('GET', ['Mcp-Session-Id: $SESSION', 'Last-Event-ID: 3'], ''),
        ('GET', ['Mcp-Session-Id: $SESSION', 'Last-Event-ID: 99999999999999999999'], ''),
        ('GET', ['Mcp-Session-Id: unknown'], ''),
        ('DELETE', ['Mcp-Session-Id: $SESSION'], ''),
        ('DELETE', [], '')]:
    h = [method + ' /mcp HTTP/1.1', 'Host: 127.0.0.1:41922', AUTH, 'Accept: application/json, text/event-stream',
         'Content-Type: application/json'] + extra
    if body:
        h.append('Content-Length: %d' % len(body))
    put('http_screen', '\r\n'.join(h) + '\r\n\r\n' + body)

# --- search queries: the query tests' and search tests' literals, and the syntax's corners ------
for path in ['tests/engine/search/query_test.cpp', 'tests/engine/search/search_test.cpp']:
    for m in re.finditer(r'(?:match_of|error_of|run_search\(\*f\.db, "[a-z]+",) ?\((?:R"\((.*?)\)"|"((?:[^"\\]|\\.)*)")', read(path)):
        raw, plain = m.group(1), m.group(2)
        put('search_query', raw if raw is not None else unescape(plain).replace('\\"', '"'))
for q in ['open file', 'title:file', 'meta.tags:(io OR net)', '"open file"', 'conn*', 'socket AND bind listen',
          'socket NOT udp', '(a OR b) AND c', 'café', 'CAFE naïve', '東京', 'std::move', 'error: not found',
          'open()', 'body:"quoted" *', '((((x))))', 'a AND', 'NOT a', '"unclosed', 'a*b', '* ', 'title:',
          'title:(a', ')', 'read* OR run*', 'Straße', 'ΣΊΣΥΦΟΣ', 'fox AND NOT dog', '"" x', '"a"*']:
    put('search_query', q)

# --- BSON: the documents encoded, op-log records around them, and damaged copies -------------
def cstr(s):
    return s.encode() + b'\0'


def element(name, v):
    if isinstance(v, bool):
        return b'\x08' + cstr(name) + (b'\x01' if v else b'\x00')
    if v is None:
        return b'\x0a' + cstr(name)
    if isinstance(v, int):
        if -2**31 <= v < 2**31:
            return b'\x10' + cstr(name) + struct.pack('<i', v)
        return b'\x12' + cstr(name) + struct.pack('<q', v)
    if isinstance(v, float):
        return b'\x01' + cstr(name) + struct.pack('<d', v)
    if isinstance(v, str):
        b = v.encode()
        return b'\x02' + cstr(name) + struct.pack('<i', len(b) + 1) + b + b'\0'
    if isinstance(v, dict):
        return b'\x03' + cstr(name) + bson(v)
    if isinstance(v, list):
        return b'\x04' + cstr(name) + bson({str(i): e for i, e in enumerate(v)})
    raise TypeError


def bson(d):
    body = b''.join(element(k, v) for k, v in d.items())
    return struct.pack('<i', len(body) + 5) + body + b'\0'


encoded = []
for d in documents:
    try:
        if any('\0' in k for k in d):
            continue
        encoded.append(bson(d))
    except (TypeError, struct.error):
        pass
for b in encoded[:60]:
    put('stored_bytes', b)
for b in encoded[60:90]:
    put('stored_bytes', b[:len(b) // 2])  # cut short
    put('stored_bytes', b[:-1] + b'\x01')  # no trailing NUL
for i, b in enumerate(encoded[:30]):
    after = encoded[(i + 1) % len(encoded)]
    record = {'seq': i + 1, 'op': 'update', 'collection': 'c', 'batch': 1}
    body = b''.join(element(k, v) for k, v in record.items())
    body += b'\x03' + cstr('before') + b + b'\x03' + cstr('after') + after
    put('stored_bytes', struct.pack('<i', len(body) + 5) + body + b'\0')

counts = {t: len(os.listdir(os.path.join(OUT, t))) for t in sorted(os.listdir(OUT))}
print('seeds:', ', '.join(f'{t} {n}' for t, n in counts.items()))
