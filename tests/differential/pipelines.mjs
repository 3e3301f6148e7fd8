// Differential test of aggregation pipelines: generated pipelines over generated documents,
// run through omgdb's `aggregate` tool and through mingo's `aggregate`, compared as multisets
// of canonical documents (stage output order is checked by the golden cases, since MongoDB
// leaves $group's order unspecified). Where mingo differs from MongoDB 9.0 the case is named
// by a PIPELINE_OVERRIDES row (with the reason), and its expected value is either adjusted
// here to MongoDB's rule or the case is left to pipeline_golden.mjs.
//
// runPipelineDiff({ call, rnd, record, fail, scale }) inserts collections `p` and `pf` and
// returns nothing; outcomes go through record / fail like the other kinds.
import { aggregate as mingoAggregate } from 'mingo';

// Rows where mingo 7.2.7 differs from MongoDB (9.0); omgdb follows MongoDB.
export const PIPELINE_OVERRIDES = [
  {
    id: 'push-missing',
    why: 'mingo\'s $push adds null for a missing value; MongoDB skips it ("If the expression resolves to a ' +
      'missing field, $push does not add a value", $push manual page). The expected value drops those nulls.',
  },
  {
    id: 'avg-type',
    why: 'mingo\'s numbers are JavaScript doubles; MongoDB\'s $sum keeps int/long and $avg gives a double. The ' +
      'comparison is by numeric value (10 significant digits), types are checked by the golden cases.',
  },
];

function mulberryPick(rnd) {
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const chance = (p) => rnd() < p;
  return { int, pick, chance };
}

function canon(v) {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = canon(v[k]);
    return out;
  }
  if (typeof v === 'number') return Object.is(v, -0) ? 0 : Number(v.toPrecision(10));
  return v;
}
const bag = (docs) => docs.map((d) => JSON.stringify(canon(d))).sort();

function genDocs(g, n) {
  const { int, pick, chance } = g;
  const docs = [];
  for (let i = 1; i <= n; i++) {
    const d = { _id: i, m: int(-3, 9) };
    if (chance(0.85)) d.g = pick(['a', 'b', 'c', null, 1, 2]);
    if (chance(0.8)) d.n = pick([0, 1, 2, 5, -1, 2.5, 0.25, null, 'x']);
    if (chance(0.85)) d.arr = pick([[], [1], [1, 2], [3, 1, 3], 7, null, ['a', 'b']]);
    d.s = pick(['', 'ab', 'Abc', 'xyz', 'b-a']);
    if (chance(0.7)) d.o = { x: int(0, 3) };
    docs.push(d);
  }
  return docs;
}

const ACCUMULATORS = [
  () => ({ $sum: '$n' }), () => ({ $sum: 1 }), () => ({ $avg: '$n' }), () => ({ $avg: '$m' }),
  () => ({ $min: '$m' }), () => ({ $max: '$m' }), () => ({ $first: '$m' }), () => ({ $last: '$m' }),
  () => ({ $push: '$m' }), () => ({ $push: '$o.x' }), () => ({ $count: {} }),
  () => ({ $sum: { $multiply: ['$m', 2] } }), () => ({ $max: { $size: { $ifNull: [{ $cond: [{ $isArray: '$arr' }, '$arr', []] }, []] } } }),
  () => ({ $stdDevPop: '$m' }),
];
const EXPRESSIONS = [
  () => ({ $add: ['$m', 1] }), () => ({ $multiply: ['$m', 2.5] }), () => ({ $subtract: ['$m', 4] }),
  () => ({ $cond: [{ $gt: ['$m', 2] }, 'hi', 'lo'] }), () => ({ $ifNull: ['$n', 'none'] }),
  () => ({ $concat: ['$s', '-'] }), () => ({ $toUpper: '$s' }), () => ({ $substrCP: ['$s', 0, 2] }),
  () => ({ $strLenCP: '$s' }), () => ({ $isArray: '$arr' }), () => ({ $abs: '$m' }),
  () => ({ $in: [1, { $cond: [{ $isArray: '$arr' }, '$arr', []] }] }), () => ({ $eq: ['$g', 'a'] }),
  () => ({ $max: ['$m', 3] }), () => ({ $mod: ['$m', 3] }), () => ({ $split: ['$s', '-'] }),
];

function genStage(g, afterGroup) {
  const { int, pick, chance } = g;
  const kinds = afterGroup ? ['match-expr', 'project', 'sortlimit', 'count'] :
    ['match', 'match', 'match-expr', 'group', 'group', 'project', 'addFields', 'unwind', 'sortlimit', 'sortByCount',
      'lookup', 'count', 'skip'];
  switch (pick(kinds)) {
    case 'match': return pick([
      () => ({ $match: { m: { $gte: int(-2, 6) } } }), () => ({ $match: { g: pick(['a', 'b', null, 1]) } }),
      () => ({ $match: { arr: int(1, 3) } }), () => ({ $match: { 'o.x': { $lt: int(0, 3) } } }),
      () => ({ $match: { $or: [{ g: 'a' }, { m: { $lt: 0 } }] } })])();
    case 'match-expr': return { $match: { $expr: { $gt: [afterGroup ? '$_id' : '$m', int(-1, 4)] } } };
    case 'group': {
      const spec = { _id: pick(['$g', null, '$o.x', { k: '$g' }, { $mod: ['$m', 3] }]) };
      const k = int(1, 3);
      for (let i = 0; i < k; i++) spec[`f${i}`] = pick(ACCUMULATORS)();
      return { $group: spec };
    }
    case 'project': return afterGroup ? { $project: { _id: 1, z: { $literal: 1 } } } :
      { $project: { m: 1, x: pick(EXPRESSIONS)(), ...(chance(0.5) ? { s: 1 } : {}) } };
    case 'addFields': return { $addFields: { y: pick(EXPRESSIONS)() } };
    case 'unwind': return chance(0.5) ? { $unwind: '$arr' } :
      { $unwind: { path: '$arr', preserveNullAndEmptyArrays: true, ...(chance(0.5) ? { includeArrayIndex: 'i' } : {}) } };
    case 'sortlimit': return [{ $sort: afterGroup ? { _id: 1 } : { m: pick([1, -1]), _id: 1 } }, { $limit: int(1, 8) }];
    case 'sortByCount': return { $sortByCount: pick(['$g', '$m', { $mod: ['$m', 2] }]) };
    case 'lookup': return { $lookup: { from: 'pf', localField: pick(['g', 'm', 'arr']), foreignField: 'k', as: 'j' } };
    case 'count': return { $count: 'total' };
    case 'skip': return [{ $sort: { _id: 1 } }, { $skip: int(0, 20) }];
  }
  return { $match: {} };
}

function genPipeline(g) {
  const out = [];
  let grouped = false;
  const k = g.int(1, 3);
  for (let i = 0; i < k; i++) {
    const s = genStage(g, grouped);
    for (const st of [s].flat()) {
      out.push(st);
      if (st.$group || st.$sortByCount || st.$count) grouped = true;
    }
    if (out.at(-1).$count) break;
  }
  return out;
}

// Whether a $group of the pipeline pushes a field path (override `push-missing`).
function pushesPath(pipeline) {
  return pipeline.some((st) => st.$group && Object.entries(st.$group).some(
    ([f, acc]) => f !== '_id' && acc && typeof acc === 'object' && typeof acc.$push === 'string'));
}

export async function runPipelineDiff({ call, rnd, record, fail, scale }) {
  const g = mulberryPick(rnd);
  const docs = genDocs(g, 60);
  const foreign = [{ _id: 1, k: 'a' }, { _id: 2, k: 'b' }, { _id: 3, k: null }, { _id: 4 }, { _id: 5, k: 1 },
    { _id: 6, k: [2, 'c'] }, { _id: 7, k: 2.0 }];
  for (const [coll, ds] of [['p', docs], ['pf', foreign]]) {
    const r = await call('insert_many', { collection: coll, documents: ds });
    if (r.isError) throw new Error(`insert_many ${coll} failed: ${r.text}`);
  }
  const collections = { pf: foreign };
  const n = Math.round(400 * scale);
  for (let i = 0; i < n; i++) {
    const pipeline = genPipeline(g);
    let expected, mingoErr;
    try {
      expected = mingoAggregate(structuredClone(docs), pipeline, {
        collectionResolver: (name) => structuredClone(collections[name] ?? []),
      });
    } catch (e) {
      mingoErr = e.message;
    }
    const r = await call('aggregate', { collection: 'p', pipeline });
    if (mingoErr !== undefined || r.isError) {
      if (mingoErr !== undefined && r.isError) record('pipeline', 'passed');
      else fail('pipeline', i + 1, { pipeline, mingo: mingoErr ?? expected, omgdb: r.text });
      continue;
    }
    const got = r.text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
    if (JSON.stringify(bag(got)) === JSON.stringify(bag(expected))) {
      record('pipeline', 'passed');
      continue;
    }
    if (pushesPath(pipeline)) {
      // Override `push-missing`: compare with the $push arrays' nulls removed on both sides
      // (omgdb's pushes hold no null for missing values; m and o.x are never null when present).
      const strip = (ds) => bag(ds.map((d) => JSON.parse(JSON.stringify(d), (k, v) => (Array.isArray(v) ? v.filter((x) => x !== null) : v))));
      if (JSON.stringify(strip(got)) === JSON.stringify(strip(expected))) {
        record('pipeline', 'allowlisted');
        continue;
      }
    }
    fail('pipeline', i + 1, { pipeline, mingo: expected, omgdb: got });
  }
}
