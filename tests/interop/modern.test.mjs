// The official v2 client (@modelcontextprotocol/client) in modern (pinned 2026-07-28) and auto
// modes, and the v1 SDK client (@modelcontextprotocol/sdk, legacy 2025-11-25), over stdio and
// Streamable HTTP against the real binary: list, call, structured results (both SDKs validate
// structuredContent against outputSchema), progress, cancellation, errors, scope refusals.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client as Client2, StreamableHTTPClientTransport as Http2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as Stdio2, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as Stdio1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as Http1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const BIN = process.env.OMGDB_BIN;
const TOKEN = 'omgdb-modern-test-token-0123456789';
const READER = 'omgdb-modern-reader-token-0123456789';
const tmp = mkdtempSync(join(tmpdir(), 'omgdb-modern-'));
const store = join(tmp, 'store');
let daemon;
let url;
const daemonErr = [];

async function startDaemon() {
  const cfg = join(tmp, 'omgdb.toml');
  writeFileSync(cfg, `[[http.tokens]]\nname = "writer"\nsha256 = "${createHash('sha256').update(TOKEN).digest('hex')}"\n` +
    `scope = "read-write"\n\n[[http.tokens]]\nname = "reader"\nsha256 = "${createHash('sha256').update(READER).digest('hex')}"\nscope = "read"\n`);
  const env = { ...process.env, OMGDB_LOG_LEVEL: 'info' };
  delete env.OMGDB_HTTP_TOKEN;
  daemon = spawn(BIN, ['serve', '--listen', '127.0.0.1:0', '--config', cfg, '--unconfined-stores', '--state-dir',
    join(tmp, 'state'), '--conformance-fixtures'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('daemon did not start:\n' + daemonErr.join(''))), 15000);
    daemon.stderr.on('data', (chunk) => {
      daemonErr.push(chunk.toString());
      const all = daemonErr.join('');
      const m = all.match(/listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      if (m && all.includes('session records in')) {
        url = m[1];
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

before(async () => {
  execFileSync(BIN, ['create', store]);
  execFileSync(BIN, ['insert', store, 'users', '{"_id": 1, "name": "ann"}']);
  execFileSync(BIN, ['insert', store, 'users', '{"_id": 2, "name": "bob"}']);
  await startDaemon();
});

after(async () => {
  if (daemon && daemon.exitCode === null) {
    const exited = new Promise((resolve) => daemon.once('exit', resolve));
    daemon.kill('SIGTERM');
    await exited;  // it writes its session records on the way out
  }
  rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
});

const MODES = { modern: { pin: '2026-07-28' }, auto: 'auto' };

function stdioParams(args = []) {
  return { command: BIN, args: ['mcp', ...args], env: { ...getDefaultEnvironment() }, stderr: 'ignore' };
}

async function v2(kind, mode, { token = TOKEN, args = [] } = {}) {
  const client = new Client2({ name: 'omgdb-modern-test', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: { mode: MODES[mode] } });
  const transport = kind === 'stdio' ? new Stdio2(stdioParams(args))
    : new Http2(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

async function v1(kind, { token = TOKEN, args = [] } = {}) {
  const client = new Client1({ name: 'omgdb-v1-test', version: '1.0.0' }, { capabilities: {} });
  const transport = kind === 'stdio' ? new Stdio1(stdioParams(args))
    : new Http1(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

const waitFor = async (pred, ms = 10000) => {
  const end = Date.now() + ms;
  while (Date.now() < end && !pred()) await new Promise((r) => setTimeout(r, 50));
  return pred();
};

for (const kind of ['stdio', 'http']) {
  for (const mode of ['modern', 'auto']) {
    describe(`v2 client, ${mode} mode, over ${kind}`, () => {
      test('talks the modern revision and lists every tool with output schemas', async () => {
        const c = await v2(kind, mode);
        try {
          assert.equal(c.getProtocolEra(), 'modern');
          assert.equal(c.getNegotiatedProtocolVersion(), '2026-07-28');
          const { tools } = await c.listTools();
          const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
          assert.ok(byName.insert && byName.get && byName.find);
          assert.equal(byName.find.outputSchema.properties.documents.type, 'array');
          assert.equal(byName.insert._meta.requiredScope, 'read-write');
        } finally {
          await c.close();
        }
      });

      test('calls tools and gets structured content the client validated', async () => {
        const c = await v2(kind, mode);
        try {
          const got = await c.callTool({ name: 'get', arguments: { path: store, collection: 'users', id: 1 } });
          assert.equal(got.isError, false);
          assert.deepEqual(got.structuredContent, { document: { _id: 1, name: 'ann' } });
          assert.deepEqual(JSON.parse(got.content[0].text), { _id: 1, name: 'ann' });
          const found = await c.callTool({ name: 'find', arguments: { path: store, collection: 'users' } });
          assert.deepEqual(found.structuredContent.documents.map((d) => d.name), ['ann', 'bob']);
          const bad = await c.callTool({ name: 'get', arguments: { path: store, collection: 'users' } });
          assert.equal(bad.isError, true);
          assert.match(bad.content[0].text, /missing argument `id`/);
        } finally {
          await c.close();
        }
      });

      test('an unknown tool is a protocol error', async () => {
        const c = await v2(kind, mode);
        try {
          await assert.rejects(c.callTool({ name: 'no_such_tool', arguments: {} }), (e) => {
            assert.match(String(e.message), /no_such_tool|Unknown tool/i);
            return true;
          });
        } finally {
          await c.close();
        }
      });

      test('a tool above the scope is refused, and the server keeps serving after a cancelled call', async () => {
        const c = kind === 'stdio' ? await v2(kind, mode, { args: ['--scope', 'read'] })
          : await v2(kind, mode, { token: READER });
        try {
          const { tools } = await c.listTools();
          assert.ok(!tools.some((t) => t.name === 'insert'));
          const r = await c.callTool({ name: 'insert', arguments: { path: store, collection: 'users',
            document: { _id: 99 } } });
          assert.equal(r.isError, true);
          assert.match(r.content[0].text, /requires `read-write` scope/);
          const ac = new AbortController();
          const p = c.callTool({ name: 'find', arguments: { path: store, collection: 'users' } }, { signal: ac.signal });
          ac.abort();
          await assert.rejects(p);
          const again = await c.callTool({ name: 'get', arguments: { path: store, collection: 'users', id: 99 } });
          assert.deepEqual(again.structuredContent, { document: null });  // nothing was written
        } finally {
          await c.close();
        }
      });

      if (kind === 'http') {
        test('progress arrives as the revision defines it', async () => {
          const c = await v2(kind, mode);
          try {
            const seen = [];
            const r = await c.callTool({ name: 'test_tool_with_progress', arguments: {} },
              { onprogress: (p) => seen.push(p.progress) });
            assert.equal(r.content[0].text, 'Tool with progress executed successfully');
            assert.ok(seen.length >= 1, 'no progress notification');
            assert.deepEqual(seen, [...seen].sort((a, b) => a - b));
          } finally {
            await c.close();
          }
        });

        test('aborting a call closes its response stream and the server cancels it', async () => {
          const c = await v2(kind, mode);
          try {
            const before = (daemonErr.join('').match(/test_tool_with_logging cancelled/g) || []).length;
            const ac = new AbortController();
            const p = c.callTool({ name: 'test_tool_with_logging', arguments: {} }, { signal: ac.signal });
            setTimeout(() => ac.abort(), 40);
            await assert.rejects(p);
            assert.ok(await waitFor(() =>
              (daemonErr.join('').match(/test_tool_with_logging cancelled/g) || []).length > before),
              'the daemon did not log the call as cancelled');
          } finally {
            await c.close();
          }
        });
      }
    });
  }

  describe(`v1 SDK client (legacy 2025-11-25) over ${kind}`, () => {
    test('structured results pass the SDK\'s output-schema validation', async () => {
      const c = await v1(kind);
      try {
        const { tools } = await c.listTools();
        const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
        assert.equal(byName.get.outputSchema.type, 'object');
        const got = await c.callTool({ name: 'get', arguments: { path: store, collection: 'users', id: 2 } });
        assert.deepEqual(got.structuredContent, { document: { _id: 2, name: 'bob' } });
        const list = await c.callTool({ name: 'list_collections', arguments: { path: store } });
        assert.deepEqual(list.structuredContent, { items: ['users'] });
        const count = await c.callTool({ name: 'count_documents', arguments: { path: store, collection: 'users' } });
        assert.deepEqual(count.structuredContent, { count: 2 });
        assert.equal(count.resultType, undefined);
      } finally {
        await c.close();
      }
    });
  });
}
