// The mingo side of bench/aggregate_bench.sh: the same $match + $group pipeline over the same
// documents (WORKDIR/docs.jsonl, already parsed into memory, as mingo is used), R runs.
//   node bench/aggregate_mingo.mjs WORKDIR [RUNS]   → one JSON line {mingo_ms, groups}
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// mingo as pinned by tests/differential (installed there by aggregate_bench.sh).
const require = createRequire(join(here, '..', 'tests', 'differential', 'package.json'));
const { aggregate } = require('mingo');

const [dir, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 3);
const docs = readFileSync(join(dir, 'docs.jsonl'), 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l));
const pipeline = [{ $match: { flag: true } }, { $group: { _id: '$k', s: { $sum: '$v' }, a: { $avg: '$w' } } }];
const ms = [];
let groups = 0;
for (let r = 0; r < runs; r++) {
  const t0 = process.hrtime.bigint();
  groups = aggregate(docs, pipeline).length;
  ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
ms.sort((a, b) => a - b);
console.log(JSON.stringify({ mingo_ms: ms[Math.floor(ms.length / 2)], groups, runs }));
