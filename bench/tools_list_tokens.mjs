// tools/list size in o200k tokens per tool profile and scope (docs/tools.md "Profiles").
// Counts exactly with gpt-tokenizer's o200k_base (the package the context-pack tests install):
//   cd build/release/context-npm && node ../../../bench/tools_list_tokens.mjs ../omgdb
// What is counted: the `tools` array of the tools/list result as the server sends it (compact
// JSON), at protocol 2025-06-18 (with outputSchema) and 2025-03-26 (without). SQL tools are listed
// only with connections: the run declares one SQLite connection so that `sql` and `all` hold them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(join(process.cwd(), 'package.json'));
const { encode } = require('gpt-tokenizer/encoding/o200k_base');
const omgdb = process.argv[2];
if (!omgdb) throw new Error('usage: node tools_list_tokens.mjs OMGDB');
const dir = mkdtempSync(join(tmpdir(), 'omgdb-tokens-'));
const config = join(dir, 'omgdb.toml');
writeFileSync(config, `[[connections]]\nname = "app"\ndialect = "sqlite"\nfile = "${join(dir, "app.db")}"\nmcp_access = "read-write"\n`);

function toolsList(profile, scope, version) {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'count', version: '1' } } };
  const input = [init, { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }]
    .map((m) => JSON.stringify(m)).join('\n') + '\n';
  const r = spawnSync(omgdb, ['mcp', '--config', config, '--profile', profile, '--scope', scope], { input, encoding: 'utf8' });
  for (const line of r.stdout.split('\n')) {
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.id === 2) return m.result.tools;
  }
  throw new Error(`no tools/list answer (${profile}, ${scope}): ${r.stderr}`);
}

console.log('| profile | scope | tools | tokens (2025-06-18) | tokens (2025-03-26) |');
console.log('|---|---|---|---|---|');
for (const profile of ['all', 'core', 'search', 'sql']) {
  for (const scope of ['read', 'read-write', 'dangerous']) {
    const modern = toolsList(profile, scope, '2025-06-18');
    const legacy = toolsList(profile, scope, '2025-03-26');
    console.log(`| ${profile} | ${scope} | ${modern.length} | ${encode(JSON.stringify(modern)).length} | ${encode(JSON.stringify(legacy)).length} |`);
  }
}
