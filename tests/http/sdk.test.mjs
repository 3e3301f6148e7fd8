// Interop: the official MCP TypeScript SDK's StreamableHTTPClientTransport against
// `omgdb serve` with a bearer token: initialize, list, call, progress, cancellation,
// terminate session. The SDK is the one tests/interop installs (its node_modules).
//
//   OMGDB_BIN=/path/to/omgdb node --test tests/http/sdk.test.mjs   (run.sh does this)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = process.env.OMGDB_BIN;
if (!BIN) throw new Error('OMGDB_BIN is not set: run tests/http/run.sh /path/to/omgdb');
const SDK = new URL('../interop/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const { Client } = await import(new URL('client/index.js', SDK));
const { StreamableHTTPClientTransport } = await import(new URL('client/streamableHttp.js', SDK));
const { CallToolResultSchema } = await import(new URL('types.js', SDK));

const TOKEN = 'sdk-interop-token-' + 'k'.repeat(20);
let daemon;
let url;
let dir;
let store;
let stderr = '';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'omgdb-http-sdk-'));
  store = join(dir, 'app.omgdb');
  const run = (...args) => execFileSync(BIN, args, { encoding: 'utf8', timeout: 30_000 });
  run('create', store);
  run('insert', store, 'users', '{"name":"ana","age":30}');
  run('insert', store, 'users', '{"name":"bob","age":17}');
  daemon = spawn(BIN, ['serve', '--unconfined-stores', '--listen', '127.0.0.1:0', '--state-dir', join(dir, 'state')], {
    env: { ...process.env, OMGDB_HTTP_TOKEN: TOKEN, OMGDB_LOG_LEVEL: process.env.SDK_LOG || "info" },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('daemon did not start:\n' + stderr)), 15_000);
    daemon.stderr.on('data', (chunk) => {
      stderr += chunk;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(new URL(m[1]));
      }
    });
    daemon.on('exit', (code) => reject(new Error(`daemon exited with ${code}:\n${stderr}`)));
  });
});

after(async () => {
  if (daemon && daemon.exitCode === null) {
    const exited = new Promise((resolve) => daemon.on('exit', resolve));
    daemon.kill('SIGTERM');
    let timer;
    await Promise.race([exited, new Promise((r) => { timer = setTimeout(r, 10_000); })]);
    clearTimeout(timer);
    if (daemon.exitCode === null) daemon.kill('SIGKILL');
  }
  if (process.env.SDK_LOG) console.error(stderr);
  rmSync(dir, { recursive: true, force: true });
  assert.ok(!stderr.includes(TOKEN), 'the token reached the log');
  assert.doesNotMatch(stderr, /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: /);
  assert.equal(daemon.exitCode, 0, stderr);
});

async function connect(token = TOKEN) {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'omgdb-http-interop', version: '1.0.0' }, { capabilities: {} });
  const errors = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  return { client, transport, errors };
}

test('initialize, list tools and call find over HTTP with a bearer token', async () => {
  const { client, transport, errors } = await connect();
  try {
    assert.equal(client.getServerVersion().name, 'omgdb');
    assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'find'));
    assert.ok(tools.every((t) => t.inputSchema.type === 'object'));
    const res = await client.callTool({ name: 'find', arguments: { path: store, collection: 'users', filter: { age: { $gt: 20 } } } });
    assert.equal(res.isError, false);
    assert.match(res.content[0].text, /ana/);
    assert.doesNotMatch(res.content[0].text, /bob/);
    await client.ping();
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
  }
});

test('a call with a progress token streams progress and its result (SSE)', async () => {
  const { client } = await connect();
  try {
    const seen = [];
    const res = await client.request(
      { method: 'tools/call', params: { name: 'count_documents', arguments: { path: store, collection: 'users' } } },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p), timeout: 30_000 },
    );
    assert.equal(res.isError, false);
    assert.match(res.content[0].text, /2/);
    // The SDK may drop a progress event that arrives with the response (typescript-sdk#2580),
    // so only their shape is checked.
    for (const p of seen) assert.equal(typeof p.progress, 'number');
  } finally {
    await client.close();
  }
});

test('a cancelled call rejects on the client and the session keeps working', async () => {
  const { client } = await connect();
  try {
    const controller = new AbortController();
    const pending = client.request(
      { method: 'tools/call', params: { name: 'dump', arguments: { path: store } } },
      CallToolResultSchema,
      { signal: controller.signal },
    );
    controller.abort('changed my mind');
    await assert.rejects(pending);
    await client.ping();
    const res = await client.callTool({ name: 'get', arguments: { path: store, collection: 'users', id: 'nope' } });
    assert.ok(res.content.length > 0);
  } finally {
    await client.close();
  }
});

test('terminateSession deletes the session: its id then gets 404', async () => {
  const { client, transport } = await connect();
  const sid = transport.sessionId;
  await transport.terminateSession();
  await client.close();
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sid,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  assert.equal(res.status, 404);
  assert.equal((await res.json()).error.code, -32001);
});

test('a wrong token fails the connection with 401', async () => {
  await assert.rejects(connect('not-the-right-token-000000'), /401|Unauthorized/);
});
