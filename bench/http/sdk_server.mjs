// Benchmark baseline (not part of omgdb): a minimal MCP server written with the official
// TypeScript SDK, answering the same `get` calls omgdb answers in the benchmark, from an
// in-memory Map of the same documents (so it does less work per call than omgdb, which reads
// its RocksDB store). Streamable HTTP (stateful sessions, JSON responses) or stdio.
//
// Usage: node sdk_server.mjs http PORT DOCS_JSONL | node sdk_server.mjs stdio DOCS_JSONL
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const [mode, a, b] = process.argv.slice(2);
const docsFile = mode === 'http' ? b : a;
const docs = new Map();
for (const line of readFileSync(docsFile, 'utf8').split('\n')) {
  if (!line) continue;
  const d = JSON.parse(line);
  docs.set(d._id, d);
}

function makeServer() {
  const server = new McpServer({ name: 'sdk-baseline', version: '1.0.0' });
  server.tool('get', 'Get one document by _id.',
    { path: z.string(), collection: z.string(), id: z.any() },
    async ({ id }) => {
      const d = docs.get(id);
      if (!d) return { content: [{ type: 'text', text: 'Error: not found' }], isError: true };
      return { content: [{ type: 'text', text: JSON.stringify(d) }] };
    });
  return server;
}

if (mode === 'stdio') {
  await makeServer().connect(new StdioServerTransport());
} else {
  const transports = new Map();
  const http = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const parsed = body ? JSON.parse(body) : undefined;
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res, parsed);
  });
  http.listen(Number(a), '127.0.0.1', () => {
    process.stderr.write(`listening on ${http.address().port}\n`);
  });
}
