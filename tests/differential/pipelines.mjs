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
    id: 'lookup-repeated-local-values',
    why: 'mingo\'s $lookup leaves a hole (undefined, printed null) in the joined array for a repeated element of an array localField ' +
      '([3, 1, 3] gives [null, {…}]); MongoDB joins each matching foreign document once ($lookup manual, ' +
      '"Use $lookup with an Array"). Compared with those nulls removed from the joined arrays.',
  },
  {
    id: 'expr-cross-type-comparison',
    why: 'mingo\'s $expr comparisons are false across types; MongoDB\'s aggregation $gt/$lt "compare both value ' +
      'and type" in BSON order (a string is greater than any number; $gt manual). Not generated across types ' +
      'after $group except here, where MongoDB\'s answer is computed by the rule.',
  },
  {
    id: 'count-empty',
    why: 'mingo\'s $count of no documents gives {total: 0}; MongoDB gives no document ($count manual: an ' +
      'empty input produces no output; $group with _id null over nothing emits nothing).',
  },
  {
    id: 'densify-empty-explicit',
    why: 'mingo\'s $densify with explicit bounds generates nothing over an empty input; MongoDB generates the whole ' +
      'range when there are no partitionByFields (the lower bound "indicates the start value for the added documents, ' +
      'irrespective of documents already in the collection", $densify manual). Not generated: $densify is the first ' +
      'stage, over 60 documents; pipeline_golden.mjs checks the empty case.',
  },
  {
    id: 'densify-bad-step',
    why: 'mingo accepts a $densify step of 0 or below; MongoDB refuses it ("The step parameter in a range statement ' +
      'must be a strictly positive numeric value"). Not generated; the unit tests check the refusal.',
  },
  {
    id: 'densify-partition-values',
    why: 'mingo\'s $densify refuses partition field values that are not strings ("Partition fields must evaluate to ' +
      'string values"); MongoDB partitions by values of any type (the manual\'s restriction is on the field names in ' +
      'partitionByFields). Generated cases partition by s, which is always a string.',
  },
  {
    id: 'densify-past-last-document',
    why: 'mingo stops generating at the last document: explicit bounds [lo, hi] give nothing above the largest value, and ' +
      '"full" bounds with partitions give a partition nothing at the largest value of all documents. MongoDB generates ' +
      'up to hi (exclusive), and for "full" up to the global largest value (inclusive) in every partition ' +
      '(document_source_densify.cpp, densifyExplicitRangeAfterEOF and finishDensifyingPartitionedInput). Not generated: ' +
      'explicit upper bounds are at most the smallest largest value of a partition, and "full" comes without ' +
      'partitions; the unit tests check both.',
  },
  {
    id: 'fill-linear-leading-null',
    why: 'mingo\'s $fill with method "linear" throws on a null or missing value before the first non-null one; MongoDB ' +
      'leaves it null ($fill manual, "linear Behavior"). Not generated (the generated fields have leading nulls); the ' +
      'unit tests and pipeline_golden.mjs check linear fill.',
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
      'lookup', 'count', 'skip', 'window'];
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
    case 'window': {
      // A range window over the numeric sort field m (always present): numeric bounds take the
      // documents whose m lies within, "current" is the document itself (mingo and MongoDB agree).
      const bound = (v) => (v === 'current' ? 0 : v === 'unbounded' ? null : v);
      let lo = pick(['unbounded', 'current', 0, -1, -2, -0.5, -4]);
      let hi = pick(['unbounded', 'current', 0, 1, 2, 0.5, 3]);
      if (bound(lo) !== null && bound(hi) !== null && bound(lo) > bound(hi)) [lo, hi] = ['unbounded', hi];
      const acc = pick([() => ({ $sum: '$m' }), () => ({ $push: '$_id' }), () => ({ $sum: 1 })])();
      return { $setWindowFields: { ...(chance(0.6) ? { partitionBy: pick(['$g', '$o.x']) } : {}), sortBy: { m: 1 },
        output: { w: { ...acc, window: { range: [lo, hi] } } } } };
    }
  }
  return { $match: {} };
}

// $densify or $fill as the first stage (so its input is the 60 documents, never empty: see
// `densify-empty-explicit`), then perhaps a $match, $group or $count. Field m is an int in
// every document; n and g are sometimes missing, null or of other types.
// `topMin` is the smallest of the partitions' largest m (by s), so an explicit upper bound up
// to it never reaches past a partition's last document (`densify-past-last-document`).
function genFillPipeline(g, topMin) {
  const { int, pick, chance } = g;
  let first;
  if (chance(0.5)) {
    const parts = chance(0.5) ? ['s'] : undefined; // `densify-partition-values`
    const bounds = pick(parts ? ['partition', 'explicit'] : ['full', 'explicit']);
    first = { $densify: { field: 'm', ...(parts ? { partitionByFields: parts } : {}),
      range: { step: pick([1, 2, 3, 0.5]), bounds: bounds === 'explicit' ? [int(-6, 0), int(1, topMin)] : bounds } } };
  } else {
    const output = {};
    output.n = pick([{ method: 'locf' }, { value: 0 }, { value: '$m' }]);
    if (chance(0.3)) output.z = { value: { $add: ['$m', 1] } };
    first = { $fill: { ...(chance(0.5) ? { partitionByFields: ['g'] } : {}), sortBy: { m: pick([1, -1]), _id: 1 }, output } };
  }
  const out = [first];
  if (chance(0.5)) {
    out.push(pick([() => ({ $match: { m: { $gte: int(-2, 6) } } }), () => ({ $count: 'total' }),
      () => ({ $group: { _id: '$g', c: { $sum: 1 }, s: { $sum: '$m' }, p: { $max: '$n' } } })])());
  }
  return out;
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

// BSON comparison order of the values the generator puts in group keys (MongoDB's "Comparison/
// Sort Order": null < numbers < strings < objects < arrays < booleans), for the override
// `expr-cross-type-comparison`.
const rank = (v) => (v === null || v === undefined ? 1 : typeof v === 'number' ? 2 : typeof v === 'string' ? 3
  : Array.isArray(v) ? 5 : typeof v === 'object' ? 4 : 8);
function bsonCompare(a, b) {
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (rank(a) === 2 || rank(a) === 3 || rank(a) === 8) return a < b ? -1 : a > b ? 1 : 0;
  return JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0;
}

// mingo's answer, with MongoDB's rules where an override names a difference: a $match of
// {$expr: {$gt: ["$_id", k]}} is applied by bsonCompare, and nulls mingo leaves in $lookup's
// joined arrays are removed. Returns { docs, overridden }.
function expectedOf(docs, pipeline, collections) {
  const opts = { collectionResolver: (name) => structuredClone(collections[name] ?? []) };
  let cur = structuredClone(docs);
  let start = 0;
  let overridden = false;
  for (let i = 0; i < pipeline.length; i++) {
    const e = pipeline[i].$match?.$expr?.$gt;
    if (!e || e[0] !== '$_id') continue;
    cur = mingoAggregate(cur, pipeline.slice(start, i), opts).filter((d) => bsonCompare(d._id, e[1]) > 0);
    start = i + 1;
    overridden = true;
  }
  cur = mingoAggregate(cur, pipeline.slice(start), opts);
  if (pipeline.some((st) => st.$lookup)) {
    for (const d of cur) {
      if (Array.isArray(d.j) && d.j.some((x) => x == null)) {
        d.j = d.j.filter((x) => x != null); // mingo leaves undefined holes (printed as null)
        overridden = true;
      }
    }
  }
  if (pipeline.at(-1).$count && cur.length === 1 && cur[0].total === 0) {
    cur = [];
    overridden = true;
  }
  return { docs: cur, overridden };
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
  const topBy = {};
  for (const d of docs) topBy[d.s] = Math.max(topBy[d.s] ?? -Infinity, d.m);
  const topMin = Math.max(1, Math.min(...Object.values(topBy)));
  const nFill = Math.round(80 * scale);
  for (let i = 0; i < n + nFill; i++) {
    // the $densify / $fill cases come after the others, so those stay as they were
    const pipeline = i < n ? genPipeline(g) : genFillPipeline(g, topMin);
    let expected, overridden = false, mingoErr;
    try {
      ({ docs: expected, overridden } = expectedOf(docs, pipeline, collections));
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
      record('pipeline', overridden ? 'allowlisted' : 'passed');
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
