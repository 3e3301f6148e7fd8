// Differential test: omgdb's query and update language against mingo (7.x, the JavaScript
// implementation of the MongoDB language), on generated documents, filters, projections,
// sorts, updates and aggregation pipelines (pipelines.mjs). Every case is run through both; results are compared canonically.
//
//   node differential.mjs /path/to/omgdb [--seed N] [--scale F] [--max-print N]
//
// Seeded and reproducible: the same seed generates the same cases. A failing case prints the
// seed, its number, the documents, the operation and both results. Where mingo itself
// differs from MongoDB, ALLOWLIST (below) names the row and the reason, and golden.mjs checks
// omgdb against MongoDB's documented behaviour for that row instead. Exit status 1 on any
// unexplained difference; the last line is `differential: N passed, M failed`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { find as mingoFind, Query } from 'mingo';
import { update as mingoUpdate } from 'mingo/updater';

import { OmgdbSession } from './omgdb_client.mjs';
import { runGolden } from './golden.mjs';
import { runPipelineDiff } from './pipelines.mjs';
import { runPipelineGolden } from './pipeline_golden.mjs';

// ---------------------------------------------------------------------------------------------
// Arguments

const argv = process.argv.slice(2);
const BIN = argv.find((a) => !a.startsWith('--'));
if (!BIN) {
  console.error('usage: node differential.mjs /path/to/omgdb [--seed N] [--scale F] [--max-print N]');
  process.exit(2);
}
function opt(name, dflt) {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
}
const SEED = Number(opt('--seed', process.env.DIFF_SEED ?? 20261130)) >>> 0;
const SCALE = Number(opt('--scale', process.env.DIFF_SCALE ?? 1));
const MAX_PRINTED_FAILURES = Number(opt('--max-print', 20));

const N_QUERY_DOCS = 120;
const N_FILTER_CASES = Math.round(3000 * SCALE);
const N_PROJECTION_CASES = Math.round(500 * SCALE);
const N_SORT_CASES = Math.round(600 * SCALE);
const N_UPDATE_CASES = Math.round(2000 * SCALE);
const UPDATE_DOCS_PER_CASE = 4;
const BIG = 1_000_000; // find's limit when every match is wanted (its default page is smaller)
const UPDATE_CASES_PER_COLLECTION = 50;

// ---------------------------------------------------------------------------------------------
// Seeded PRNG (mulberry32) and helpers

function mulberry32(a) {
  return function () {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
let rnd = mulberry32(SEED);
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1)); // inclusive
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const chance = (p) => rnd() < p;
function shuffled(xs) {
  const a = xs.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}
const clone = (v) => structuredClone(v);

// ---------------------------------------------------------------------------------------------
// Canonical form: keys sorted recursively (field order only matters in the golden tests),
// numbers by value (-0 is 0), arrays in order.

function canon(v) {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = canon(v[k]);
    return out;
  }
  if (typeof v === 'number' && Object.is(v, -0)) return 0;
  return v;
}
const canonStr = (v) => JSON.stringify(canon(v));
const show = (v) => JSON.stringify(v);

function parseNdjson(text) {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('More documents match:')) // find's continuation note
    .map((l) => JSON.parse(l));
}

// ---------------------------------------------------------------------------------------------
// Documents: types mingo models (int, double, string, bool, null, object, array); small value
// domains so that filters hit often.

const INTS = [-2, -1, 0, 1, 2, 3, 4, 5];
const DOUBLES = [-1.5, 0.5, 1.5, 2.5, 3.25];
const STRINGS = ['', 'a', 'b', 'ab', 'A', 'abc', 'ba', 'xyz'];
const SUBKEYS = ['x', 'y', 'z'];

function genScalar() {
  const r = rnd();
  if (r < 0.42) return pick(INTS);
  if (r < 0.55) return pick(DOUBLES);
  if (r < 0.78) return pick(STRINGS);
  if (r < 0.88) return chance(0.5);
  return null;
}

function genValue(depth) {
  const r = rnd();
  if (depth <= 0 || r < 0.5) return genScalar();
  if (r < 0.72) return genObject(depth - 1);
  return genArray(depth - 1);
}

function genObject(depth) {
  const o = {};
  for (const k of shuffled(SUBKEYS)) if (chance(0.55)) o[k] = genValue(depth);
  return o;
}

function genArray(depth) {
  const n = int(0, 4);
  const a = [];
  const kind = rnd();
  for (let i = 0; i < n; i++) {
    if (kind < 0.35) a.push(genScalar());
    else if (kind < 0.65) a.push(genObject(Math.max(depth, 0)));
    else a.push(genValue(depth)); // mixed, incl. nested arrays
  }
  return a;
}

function genQueryDoc(id) {
  const d = { _id: id };
  for (const k of ['a', 'b', 'c', 'd']) if (chance(0.8)) d[k] = genValue(3);
  if (chance(0.3)) d.n = genScalar();
  return d;
}

// ---------------------------------------------------------------------------------------------
// Filters

const PATHS = ['a', 'b', 'c', 'd', 'n', 'a.x', 'a.y', 'b.x', 'b.z', 'c.x.y', 'd.y', 'a.0', 'a.1', 'b.0.x', 'a.x.0',
  'a.x.y', 'c.0.0', 'd.2', 'b.y.z', 'c.1.x'];
const TYPE_NAMES = ['string', 'object', 'array', 'bool', 'null', 'number'];
const REGEXES = [['^a', ''], ['b$', ''], ['a', 'i'], ['^$', ''], ['^[ab]+$', ''], ['Y', 'i'], ['^A', '']];

function genLiteral() {
  const r = rnd();
  if (r < 0.8) return genScalar();
  if (r < 0.9) return genArray(0);
  return genObject(0);
}

function genCmpValue() {
  const r = rnd();
  if (r < 0.55) return pick(INTS.concat(DOUBLES));
  if (r < 0.85) return pick(STRINGS);
  if (r < 0.93) return chance(0.5);
  return null;
}

function genOperator(depth) {
  const r = int(0, 19);
  switch (r) {
    case 0: return { $eq: genLiteral() };
    case 1: return { $ne: genLiteral() };
    case 2: return { $gt: genCmpValue() };
    case 3: return { $gte: genCmpValue() };
    case 4: return { $lt: genCmpValue() };
    case 5: return { $lte: genCmpValue() };
    case 6: return { $in: Array.from({ length: int(1, 3) }, genLiteral) };
    case 7: return { $nin: Array.from({ length: int(1, 3) }, genLiteral) };
    case 8: return { $exists: chance(0.5) };
    case 9: return { $all: Array.from({ length: int(1, 2) }, genScalar) };
    case 10: return { $elemMatch: genOperator(0) }; // value form
    case 11: return { $elemMatch: { [pick(SUBKEYS)]: chance(0.5) ? genScalar() : genOperator(0) } }; // document form
    case 12: return { $size: int(0, 3) };
    case 13: {
      const [p, o] = pick(REGEXES);
      return o ? { $regex: p, $options: o } : { $regex: p };
    }
    case 14: return { $type: chance(0.8) ? pick(TYPE_NAMES) : [pick(TYPE_NAMES), pick(TYPE_NAMES)] };
    case 15: {
      let inner = genOperator(depth - 1);
      while (inner.$not) inner = genOperator(depth - 1);
      return depth > 0 ? { $not: inner } : { $exists: true };
    }
    // $mod is not generated: mingo takes the remainder of fractions, null and booleans
    // (`null % 2 == 0`), MongoDB truncates fractions and matches numbers only. ALLOWLIST row
    // `mod-non-integers`; golden.mjs checks MongoDB's rule.
    case 16: return { $exists: false };
    case 17: return { $gt: genCmpValue(), $lte: genCmpValue() };
    case 18: return { $in: [null, genScalar()] };
    default: return { $eq: null };
  }
}

function genLeaf() {
  const path = pick(PATHS);
  const r = rnd();
  if (r < 0.25) return { [path]: genLiteral() }; // implicit equality (no regex values here)
  return { [path]: genOperator(1) };
}

function genFilter(depth) {
  const r = rnd();
  if (depth > 0 && r < 0.25) {
    const op = pick(['$and', '$or', '$nor']);
    return { [op]: Array.from({ length: int(1, 3) }, () => genFilter(depth - 1)) };
  }
  const f = {};
  const n = r < 0.85 ? 1 : 2;
  for (let i = 0; i < n; i++) Object.assign(f, genLeaf());
  return f;
}

// ---------------------------------------------------------------------------------------------
// ALLOWLIST: rows where mingo 7.2.7 differs from MongoDB (9.0 semantics, which omgdb
// implements; mingo follows 8.0 or earlier where 9.0 changed the rules, see the
// `null-dotted-path-9.0` row). Each entry explains one difference; a differing document is excused only when
// the entry's `explains(doc, case)` is true for it, so the allowlist cannot hide unrelated
// bugs. golden.mjs holds a MongoDB-documented check for each row, run against omgdb.
// The notes' table (../../../shared/notes/document-engine.md §2) rows that concern
// aggregation ($bucket, $count, $lookup, $group, $expr) are not generated here; their goldens
// for $expr still run.

// Walks `path` through `doc` the way MongoDB's matcher does and reports whether some branch
// goes through an array nested directly in an array (a case mingo's traversal gets wrong).
function pathMeetsNestedArray(doc, path) {
  const parts = path.split('.');
  const walk = (v, i) => {
    if (Array.isArray(v)) {
      if (v.some((e) => Array.isArray(e))) return true;
      if (i < parts.length && /^\d+$/.test(parts[i]) && walk(v[Number(parts[i])], i + 1)) return true;
      return v.some((e) => e && typeof e === 'object' && walk(e, i));
    }
    if (i >= parts.length) return false;
    if (v && typeof v === 'object') return walk(v[parts[i]], i + 1);
    return false;
  };
  return walk(doc, 0);
}

// Every [path, condition] of a filter, through $and/$or/$nor (condition: the operator document
// or the literal).
function conditionsOf(f, out = [], prefix = '') {
  for (const [k, v] of Object.entries(f)) {
    if (k === '$and' || k === '$or' || k === '$nor') v.forEach((c) => conditionsOf(c, out, prefix));
    else if (!k.startsWith('$')) {
      out.push([prefix + k, v]);
      // $elemMatch document form: its conditions apply below the array, at path.<field>.
      for (const o of operatorsOf(v)) if (isPlainDoc(o.$elemMatch) && !isOpDoc(o.$elemMatch)) conditionsOf(o.$elemMatch, out, prefix + k + '.');
    }
  }
  return out;
}
const inElemMatch = new WeakSet(); // operator documents met inside an $elemMatch value form
const isOpDoc = (v) => v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v)[0]?.startsWith('$');
// The operator documents of a condition, $not and $elemMatch value forms included.
function operatorsOf(cond, out = []) {
  if (!isOpDoc(cond)) return out;
  out.push(cond);
  if (isOpDoc(cond.$not)) operatorsOf(cond.$not, out);
  if (isOpDoc(cond.$elemMatch)) {
    inElemMatch.add(cond.$elemMatch);
    operatorsOf(cond.$elemMatch, out);
  }
  return out;
}
// Values reached by `path` in `doc` with MongoDB's traversal (one array level per component,
// numeric components index arrays too); `undefined` marks a missing branch.
function valuesAt(doc, path) {
  const parts = path.split('.');
  const out = [];
  const walk = (v, i) => {
    if (i === parts.length) return out.push(v);
    if (Array.isArray(v)) {
      if (/^\d+$/.test(parts[i])) walk(v[Number(parts[i])], i + 1);
      for (const e of v) if (e && typeof e === 'object' && !Array.isArray(e)) walk(e[parts[i]], i + 1);
      return;
    }
    if (v && typeof v === 'object') return walk(v[parts[i]], i + 1);
    out.push(undefined);
  };
  walk(doc, 0);
  return out;
}
const isPlainDoc = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function pathsOfFilter(f, out = []) {
  for (const [k, v] of Object.entries(f)) {
    if (k === '$and' || k === '$or' || k === '$nor') v.forEach((c) => pathsOfFilter(c, out));
    else if (!k.startsWith('$')) out.push(k);
  }
  return out;
}

function pathThroughArray(doc, path) {
  const parts = path.split('.');
  let vs = [doc];
  for (let i = 0; i < parts.length - 1; i++) {
    const next = [];
    for (const v of vs) {
      const c = v && typeof v === 'object' ? v[parts[i]] : undefined;
      if (Array.isArray(c)) return true;
      next.push(c);
    }
    vs = next;
  }
  return false;
}

// Whether `path` in `doc` meets an array in the middle of the path whose elements yield
// nothing for the rest of it (empty, scalars only, nested arrays): MongoDB 9.0 evaluates the
// path as null there, 8.0 (and mingo) as no value at all.
function unresolvedThroughArray(doc, path) {
  const parts = path.split('.');
  // How many values (or missing branches) the walk from `v` at parts[i] reports; sets `hit`.
  let hit = false;
  const walk = (v, i) => {
    if (i === parts.length) return 1;
    if (Array.isArray(v)) {
      let n = 0;
      if (/^\d+$/.test(parts[i]) && Number(parts[i]) < v.length) {
        const x = v[Number(parts[i])];
        if (i + 1 === parts.length) n += 1;
        else if (Array.isArray(x)) n += walk(x, i + 1);
      }
      for (const e of v) if (isPlainDoc(e)) n += walk(e[parts[i]], i + 1);
      if (n === 0) hit = true;
      return n === 0 ? 1 : n;
    }
    if (isPlainDoc(v)) return walk(v[parts[i]], i + 1);
    return 1;
  };
  walk(doc, 0);
  return hit;
}

const ALLOWLIST = [
  // Rows of the notes' table; the `nested-array-traversal` row also covers arrays nested at the
  // end of the path (`{b: {$regex: "^A"}}` vs `b: [["A"]]`: MongoDB no match, mingo match).
  {
    id: 'nested-array-traversal',
    // mingo descends through arrays nested in arrays on a dotted path (`{"a.b": 1}` matches
    // `a: [[{b: 1}]]`, and `{"a.b": 1}` vs `a: [[1, 2], 3]`); MongoDB expands one array level
    // per path component. notes §2 row 1.
    kind: 'filter',
    explains: (doc, c) => pathsOfFilter(c.filter).some((p) => pathMeetsNestedArray(doc, p)),
  },
  {
    id: 'dotted-path-through-array',
    // A dotted path through an array of documents (`"a.b"` with `a: [{b: 1}, {c: 2}]`). notes §2
    // row 2 (`{"a.b": null}` vs `a: [{c: 2}]`: MongoDB matches, mingo does not), and more found
    // by this test: mingo collects the elements' values into one array and applies the operator
    // to that array, so `$size`, `$type: "array"` and array equality see the collected values
    // (`{"b.z": {$size: 2}}` matches `b: [{z: 3}, {z: null}]` in mingo, not in MongoDB), and an
    // array inside an element becomes a nested array that mingo no longer traverses
    // (`{"b.x": {$gt: -1}}` vs `b: [{x: [4]}]`: MongoDB matches, mingo does not). MongoDB
    // evaluates each element's value on its own. Broad on purpose: mingo's model differs for
    // every operator here; golden.mjs pins MongoDB's behaviour for each kind.
    kind: 'filter',
    explains: (doc, c) => conditionsOf(c.filter).some(([p]) => p.includes('.') && pathThroughArray(doc, p)),
  },
  {
    id: 'elemmatch-non-document-elements',
    // `$elemMatch` document form (`{a: {$elemMatch: {x: null}}}`): MongoDB applies the inner
    // filter only to elements that are documents or arrays (an array element is seen as a
    // document keyed by its indexes); mingo also applies it to null and scalar elements and
    // does not see arrays as documents. Also: on a dotted path through an array (`"a.x"` with
    // `a: [{x: "a"}, ...]`) mingo applies `$elemMatch` to the collected values as if they were
    // an array; MongoDB only to arrays found at the path. Found by this test.
    kind: 'filter',
    explains: (doc, c) => conditionsOf(c.filter).some(([p, cond]) => operatorsOf(cond).some((o) =>
      isPlainDoc(o.$elemMatch) && ((p.includes('.') && pathThroughArray(doc, p)) || (!isOpDoc(o.$elemMatch) &&
      valuesAt(doc, p).some((v) => Array.isArray(v) && v.some((e) => !isPlainDoc(e))))))),
  },
  {
    id: 'null-range-missing',
    // `{a: {$gte: null}}` / `{a: {$lte: null}}` match a missing field in MongoDB (missing
    // compares as null); mingo matches only null. Found by this test.
    kind: 'filter',
    explains: (doc, c) => conditionsOf(c.filter).some(([p, cond]) => operatorsOf(cond).some((o) =>
      (('$gte' in o && o.$gte === null) || ('$lte' in o && o.$lte === null)) && valuesAt(doc, p).some((v) => v === undefined || v === null || Array.isArray(v)))),
  },
  {
    id: 'type-array-elements',
    // `$type` matches an array whose elements have the type (`{a: {$type: "bool"}}` matches
    // `a: [true]`) in MongoDB; mingo tests the array itself only. Found by this test.
    kind: 'filter',
    explains: (doc, c) => conditionsOf(c.filter).some(([p, cond]) => operatorsOf(cond).some((o) =>
      '$type' in o && valuesAt(doc, p).some((v) => Array.isArray(v)))),
  },
  {
    id: 'array-value-equality',
    // Equality with an array value (`[]`, `[null]`, `["xyz"]` in `$eq`, `$in`, `$nin`, `$ne`,
    // implicit): MongoDB matches a field holding that array (whole-array equality); mingo
    // misses it for `[]` and inside `$in`/`$nin`; and on a dotted path through an array mingo
    // compares the collected values (`{"a.x": []}` matches `a: [{y: 1}]` in mingo, not in
    // MongoDB). Found by this test.
    kind: 'filter',
    explains: (doc, c) => conditionsOf(c.filter).some(([p, cond]) => operatorsOf(cond).some((o) =>
      [o.$in, o.$nin].some((l) => Array.isArray(l) && l.some((e) => Array.isArray(e)))) &&
      valuesAt(doc, p).some((v) => Array.isArray(v))) ||
      JSON.stringify(c.filter).includes('[]') &&
      pathsOfFilter(c.filter).some((p) => (p.includes('.') && pathThroughArray(doc, p)) ||
        valuesAt(doc, p).some((v) => Array.isArray(v) && (v.length === 0 || v.some((e) => Array.isArray(e) && e.length === 0)))),
  },
  {
    id: 'all-on-non-arrays',
    // `{a: {$all: [5]}}` is `{a: 5}` in MongoDB: it matches a scalar 5 and `$all: [null]`
    // matches a missing field; mingo's `$all` matches arrays only. Found by this test.
    kind: 'filter',
    explains: (doc, c) => conditionsOf(c.filter).some(([p, cond]) => operatorsOf(cond).some((o) =>
      Array.isArray(o.$all) && valuesAt(doc, p).some((v) => !Array.isArray(v) ||
        (inElemMatch.has(o) && v.some((e) => !Array.isArray(e)))))),
  },
  {
    id: 'mod-non-integers',
    // `$mod`: MongoDB truncates fractions and matches numbers only; mingo takes the remainder
    // of the fraction and of null/bool. Not generated (see genOperator); golden.mjs checks it.
    kind: 'none',
  },
  {
    id: 'mingo-projection-crash',
    // mingo throws a TypeError (`Cannot read properties of null`) on an exclusion projection of
    // a dotted path through a null; MongoDB leaves such a document as it is. Cases where mingo
    // crashes are checked only for omgdb returning every matching document without an error.
    kind: 'projection',
  },
  {
    id: 'slice-with-exclusion',
    // `{a: 0, b: {$slice: 1}}`: MongoDB (4.4+) accepts `$slice` next to exclusions and returns
    // every other field; mingo refuses ("Cannot do exclusion and inclusion in projection").
    // Not generated (array projection operators only with inclusions); golden.mjs checks it.
    // Found by this test.
    kind: 'none',
  },
  {
    id: 'projection-elemmatch-non-documents',
    // `$elemMatch` projection in document form (`{c: {$elemMatch: {y: {$exists: true}}}}`) on an
    // array holding scalars: MongoDB returns no `c` unless a document element matches; mingo
    // returns a scalar element (the `elemmatch-non-document-elements` row, in projections).
    // Found by this test.
    kind: 'projection',
    explains: (doc, c) => Object.entries(c.project).some(([f, v]) => isPlainDoc(v) && isPlainDoc(v.$elemMatch) &&
      !isOpDoc(v.$elemMatch) && Array.isArray(doc[f]) && doc[f].some((e) => !isPlainDoc(e))),
  },
  {
    id: 'projection-elemmatch-value-form',
    // `{b: {$elemMatch: {$gt: 4}}}` as a projection: MongoDB parses it like the query operator
    // (value form allowed) and returns the first element above 4; mingo throws "unknown top
    // level operator: $gt". Not generated; golden.mjs checks it. Found by this test.
    kind: 'none',
  },
  {
    id: 'descending-sort-of-arrays',
    // Descending sort on an array field: MongoDB sorts by the largest element, mingo uses
    // another one. notes §2 row 5. Rewritten: the case keeps only documents whose sort paths
    // reach no array (and, for the next row, no embedded document).
    kind: 'sort',
    explains: (docs, c) => Object.entries(c.sort).some(([p]) => docs.some((d) => valueAtPathHasArray(d, p))),
  },
  {
    id: 'sort-document-order',
    // Sorting embedded documents: MongoDB compares them element by element, each by the value's
    // type bracket first, then the field name, then the value (BSONObj::woCompare); mingo
    // compares field names first. Rewritten like the row above. Found by this test.
    kind: 'sort',
  },
  {
    id: 'projection-nested-arrays',
    // A dotted projection (`{"a.y": 0}`, `{"a.y": 1}`) on arrays nested in arrays: MongoDB's
    // projection descends into nested arrays and applies the path to the documents there;
    // mingo leaves them alone. Found by this test.
    kind: 'projection',
    explains: (doc, c) => Object.keys(c.project).some((p) => p.includes('.') && pathMeetsNestedArray(doc, p)),
  },
  {
    id: 'array-update-missing-path',
    // `$[]` / `$[id]` on a document without the array: MongoDB fails the update ("The path
    // 'arr' must exist in the document in order to apply array updates"); mingo skips the
    // document. Rewritten: such cases expect an error and unchanged documents. Found by this test.
    kind: 'update',
  },
  {
    id: 'addtoset-duplicates',
    // `$addToSet` on an array that already holds duplicates: MongoDB keeps the array as it is
    // and appends what is missing; mingo drops the duplicates, and sometimes does not append.
    // Rewritten: arrays targeted by `$addToSet` are generated without duplicates (the check
    // below that compares the other fields stays as a safety net). Found by this test.
    kind: 'update',
  },
  {
    id: 'push-modifiers-on-missing-field',
    // `$push` with `$each` and `$sort`/`$slice` on a missing field: MongoDB creates the array
    // and applies the modifiers; mingo creates it from `$each` and ignores them. Rewritten:
    // such documents get an empty array first. Found by this test.
    kind: 'update',
  },
  {
    id: 'push-sort-compound',
    // `$push` `$sort: {x: 1, y: -1}`: MongoDB sorts by both keys; mingo ignores the later ones.
    // Not generated (single-key sorts only). Found by this test.
    kind: 'update',
  },
  {
    id: 'nested-positional',
    // `$set: {"m.$[].$[k]": 9}` (nested positional operators, arrayFilters `k`): MongoDB
    // updates the matching elements of every inner array; mingo sometimes leaves them. Rewritten:
    // the expected `m` is computed by the harness (a two-line rule), the rest comes from mingo.
    // Found by this test.
    kind: 'update',
  },
  {
    id: 'inc-on-non-number',
    // `$inc`/`$mul` of a non-number: MongoDB fails the update; mingo silently does nothing.
    // notes §2 row 10. Such cases are checked only for omgdb's error.
    kind: 'update',
  },
  {
    id: 'set-field-order',
    // `$set` of new fields: MongoDB appends them in lexicographic order, mingo in insertion
    // order. notes §2 row 9. Covered by comparing key-sorted documents here, and by a golden.
    kind: 'update',
  },
  {
    id: 'projection-id-first',
    // Projections: MongoDB keeps `_id` first, mingo puts it last. notes §2 row 11. Covered by
    // comparing key-sorted documents, and by a golden.
    kind: 'projection',
  },
  {
    id: 'null-dotted-path-9.0',
    // MongoDB 9.0 ("Null Comparisons on Dotted Paths That Traverse Arrays"): a dotted path
    // that does not resolve to a non-null value evaluates as null when a field on the path
    // holds an empty array, an array of scalars or an array containing a nested array, so
    // `{"a.b": null}` matches `a: [1]` and `a: []` and `$ne: null` does not. mingo follows the
    // earlier rule (no value there). omgdb follows 9.0 (issue 15 #2); golden.mjs pins it.
    kind: 'filter',
    // Only conditions with a null operand can tell a null path from no value (missing matches
    // null; every other operator answers both alike).
    explains: (doc, c) => conditionsOf(c.filter).some(([p, cond]) => p.includes('.') && JSON.stringify(cond ?? null).includes('null') &&
      unresolvedThroughArray(doc, p)),
  },
];

function valueAtPathIsDoc(doc, path) {
  let v = doc;
  for (const part of path.split('.')) v = isPlainDoc(v) ? v[part] : undefined;
  return isPlainDoc(v);
}

function valueAtPathHasArray(doc, path) {
  let vs = [doc];
  for (const part of path.split('.')) {
    const next = [];
    for (const v of vs) {
      if (Array.isArray(v)) return true;
      if (v && typeof v === 'object' && part in v) next.push(v[part]);
    }
    vs = next;
  }
  return vs.some((v) => Array.isArray(v));
}

// KNOWN_OMGDB_BUGS: differences where omgdb, not mingo, departs from MongoDB, each with the
// exact issue, so the lead can decide. Empty: every difference found so far was mingo's (the
// ALLOWLIST rows above, each pinned by a golden check of omgdb). A bug found later goes here as
// { id, issue, explains(doc, case) } for filter cases; it is still reported as a failure.
const KNOWN_OMGDB_BUGS = [];

// ---------------------------------------------------------------------------------------------
// Running

const stats = { passed: 0, failed: 0, allowlisted: 0, skipped: 0, byKind: {} };
const allowCounts = {};
let printed = 0;

function record(kind, outcome) {
  const k = (stats.byKind[kind] ??= { passed: 0, failed: 0, allowlisted: 0, skipped: 0 });
  k[outcome]++;
  stats[outcome]++;
}

function fail(kind, caseNo, details) {
  record(kind, 'failed');
  if (printed++ < MAX_PRINTED_FAILURES) {
    console.log(`FAIL ${kind} case #${caseNo} (seed ${SEED})`);
    for (const [k, v] of Object.entries(details)) console.log(`  ${k}: ${typeof v === 'string' ? v : show(v)}`);
  }
}

function mingoIds(docs, filter) {
  return mingoFind(clone(docs), filter).all().map((d) => d._id).sort((x, y) => x - y);
}

async function pool(items, width, fn) {
  let next = 0;
  const workers = Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  });
  await Promise.all(workers);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'omgdb-differential-'));
  const store = join(dir, 'diff.omgdb');
  let session;
  try {
    execFileSync(BIN, ['create', store], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
    session = new OmgdbSession(BIN);
    await session.initialize();
    const call = async (name, args) => session.call(name, { path: store, ...args });

    // ---- query documents
    const docs = Array.from({ length: N_QUERY_DOCS }, (_, i) => genQueryDoc(i + 1));
    const ins = await call('insert_many', { collection: 'q', documents: docs });
    if (ins.isError) throw new Error(`insert_many failed: ${ins.text}`);
    const stored = parseNdjson((await call('find', { collection: 'q', limit: BIG })).text);
    if (canonStr(stored) !== canonStr(docs)) throw new Error('the stored query documents differ from the inserted ones');

    // ---- filters
    const filterCases = Array.from({ length: N_FILTER_CASES }, () => ({ filter: genFilter(2) }));
    await pool(filterCases, 8, async (c, i) => {
      const caseNo = i + 1;
      let expected, mingoErr;
      try {
        expected = mingoIds(docs, c.filter);
      } catch (e) {
        mingoErr = e.message;
      }
      const r = await call('find', { collection: 'q', filter: c.filter, project: { _id: 1 }, limit: BIG });
      if (mingoErr !== undefined || r.isError) {
        if (mingoErr !== undefined && r.isError) return record('filter', 'passed');
        return fail('filter', caseNo, { filter: c.filter, mingo: mingoErr ?? expected, omgdb: r.text });
      }
      const got = parseNdjson(r.text).map((d) => d._id);
      const exp = new Set(expected);
      const gotSet = new Set(got);
      const diff = docs.filter((d) => exp.has(d._id) !== gotSet.has(d._id));
      if (diff.length === 0 && got.every((v, j) => j === 0 || got[j - 1] < v)) return record('filter', 'passed');
      const unexplained = diff.filter((d) => !ALLOWLIST.some((a) => a.kind === 'filter' && a.explains(d, c)));
      if (unexplained.length === 0) {
        for (const d of diff) {
          const a = ALLOWLIST.find((x) => x.kind === 'filter' && x.explains(d, c));
          allowCounts[a.id] = (allowCounts[a.id] ?? 0) + 1;
        }
        return record('filter', 'allowlisted');
      }
      fail('filter', caseNo, {
        filter: c.filter,
        'differing documents (up to 3)': unexplained.slice(0, 3).map((d) => ({ doc: d, mingo: exp.has(d._id), omgdb: gotSet.has(d._id) })),
        'differing ids': unexplained.map((d) => d._id),
      });
    });

    // ---- projections (inclusion or exclusion of non-overlapping paths, with a filter)
    const PROJ_PATHS = ['a', 'b', 'c', 'd', 'n', 'a.x', 'a.y', 'b.x', 'c.x', 'c.x.y', 'd.y', 'b.z'];
    const projCases = Array.from({ length: N_PROJECTION_CASES }, () => {
      const incl = chance(0.5) ? 1 : 0;
      const chosen = [];
      for (const p of shuffled(PROJ_PATHS)) {
        if (chosen.length >= int(1, 3)) break;
        if (chosen.some((q) => q === p || q.startsWith(p + '.') || p.startsWith(q + '.'))) continue;
        chosen.push(p);
      }
      const project = {};
      for (const p of chosen) project[p] = incl;
      if (chance(0.3)) project._id = incl ? 0 : 1;
      if (!incl && project._id === 1) delete project._id;
      if (chance(0.3)) {
        // Array projection operators on a top-level field not otherwise projected.
        const f = pick(['a', 'b', 'c', 'd'].filter((x) => !chosen.some((q) => q.split('.')[0] === x)));
        if (f) {
          project[f] = chance(0.6)
            ? { $slice: pick([0, 1, 2, -1, -2, [1, 2], [-2, 1], [0, 5]]) } // only with inclusions: row `slice-with-exclusion`
            // Document form only: mingo refuses the value form (row `projection-elemmatch-value-form`).
            : { $elemMatch: pick([{ x: genScalar() }, { y: { $exists: true } }, { x: { $gte: pick(INTS) } }]) };
          if (!incl) delete project[f]; // with inclusions only (ALLOWLIST row `slice-with-exclusion`)
        }
      }
      return { filter: chance(0.5) ? genFilter(1) : {}, project };
    });
    await pool(projCases, 8, async (c, i) => {
      const caseNo = i + 1;
      let expected, mingoErr;
      try {
        const matched = mingoFind(clone(docs), c.filter).all().map((d) => d._id);
        const keep = new Set(matched);
        // mingo's projection, applied per document in _id order.
        expected = docs.filter((d) => keep.has(d._id)).map((d) => mingoFind([clone(d)], {}, c.project).all()[0]);
      } catch (e) {
        mingoErr = e.message;
      }
      const r = await call('find', { collection: 'q', filter: c.filter, project: c.project, limit: BIG });
      const rid = await call('find', { collection: 'q', filter: c.filter, project: { _id: 1 }, limit: BIG });
      if (mingoErr !== undefined && /Cannot read properties/.test(mingoErr) && !r.isError) {
        // ALLOWLIST row `mingo-projection-crash`: mingo crashed; MongoDB returns every match.
        allowCounts['mingo-projection-crash'] = (allowCounts['mingo-projection-crash'] ?? 0) + 1;
        if (parseNdjson(r.text).length === parseNdjson(rid.text).length) return record('projection', 'allowlisted');
      }
      if (mingoErr !== undefined || r.isError) {
        if (mingoErr !== undefined && r.isError) return record('projection', 'passed');
        return fail('projection', caseNo, { filter: c.filter, project: c.project, mingo: mingoErr ?? expected, omgdb: r.text });
      }
      const got = parseNdjson(r.text);
      if (canonStr(got) === canonStr(expected)) return record('projection', 'passed');
      // Align both sides by _id (omgdb's ids from a second find with the same filter; mingo's
      // expected list is in _id order), so a filter row explains a missing document and a
      // projection row explains a differing one.
      const gotIds = parseNdjson(rid.text).map((d) => d._id);
      const mingoMatched = mingoIds(docs, c.filter);
      const gotById = new Map(gotIds.map((id, j) => [id, got[j]]));
      const expById = new Map(mingoMatched.map((id, j) => [id, expected[j]]));
      let allowed = gotIds.length === got.length;
      const bad = [];
      for (const d of docs) {
        const g = gotById.get(d._id);
        const e = expById.get(d._id);
        if (g === undefined && e === undefined) continue;
        if (g === undefined || e === undefined) {
          if (!ALLOWLIST.some((a) => a.kind === 'filter' && a.explains(d, c))) bad.push({ doc: d, mingo: e ?? 'no match', omgdb: g ?? 'no match' });
          else allowed = allowed && true;
          continue;
        }
        if (canonStr(g) === canonStr(e)) continue;
        const row = ALLOWLIST.find((a) => a.kind === 'projection' && a.explains && a.explains(d, c));
        if (row) allowCounts[row.id] = (allowCounts[row.id] ?? 0) + 1;
        else bad.push({ doc: d, mingo: e, omgdb: g });
      }
      if (allowed && bad.length === 0) return record('projection', 'allowlisted');
      fail('projection', caseNo, { filter: c.filter, project: c.project, 'differing documents (up to 3)': bad.slice(0, 3) });
    });

    // ---- sorts with skip and limit (ties broken by _id on both sides: mingo's sort is
    // stable and its input is in _id order)
    const SORT_PATHS = ['a', 'b', 'c', 'd', 'n', 'a.x', 'b.x', 'c.x.y', 'd.y', 'a.0'];
    const sortCases = Array.from({ length: N_SORT_CASES }, () => {
      const sort = {};
      for (const p of shuffled(SORT_PATHS).slice(0, int(1, 2))) sort[p] = chance(0.5) ? 1 : -1;
      return { filter: {}, sort, skip: chance(0.3) ? int(0, 10) : 0, limit: int(1, 25) };
    });
    await pool(sortCases, 8, async (c, i) => {
      const caseNo = i + 1;
      // Rewrite: sort cases whose keys reach an array are only comparable when MongoDB and
      // mingo agree on arrays; mingo is wrong for descending order (allowlisted), and keys
      // reaching arrays of mixed brackets need MongoDB's index-key rules, which mingo lacks.
      // No generated filter here (filter cases test those; a filter row would change the
      // document set). Keep only documents whose sort paths reach no array and no document (rows
      // `descending-sort-of-arrays`, `sort-document-order`), so the case stays meaningful.
      c.filter = { $and: [c.filter, ...Object.keys(c.sort).map((p) => arrayFreeFilter(p))] };
      let expected, mingoErr;
      try {
        const pre = mingoFind(clone(docs), c.filter).all();
        const pool2 = docs.filter((d) => pre.some((p) => p._id === d._id) && Object.keys(c.sort).every((p) => !valueAtPathHasArray(d, p) && !valueAtPathIsDoc(d, p)));
        expected = mingoFind(clone(pool2), {}).sort(c.sort).skip(c.skip).limit(c.limit).all().map((d) => d._id);
      } catch (e) {
        mingoErr = e.message;
      }
      const r = await call('find', { collection: 'q', filter: c.filter, sort: c.sort, skip: c.skip, limit: c.limit, project: { _id: 1 } });
      if (mingoErr !== undefined || r.isError) {
        if (mingoErr !== undefined && r.isError) return record('sort', 'passed');
        return fail('sort', caseNo, { filter: c.filter, sort: c.sort, skip: c.skip, limit: c.limit, mingo: mingoErr ?? expected, omgdb: r.text });
      }
      const got = parseNdjson(r.text).map((d) => d._id);
      if (show(got) === show(expected)) return record('sort', 'passed');
      fail('sort', caseNo, {
        filter: c.filter, sort: c.sort, skip: c.skip, limit: c.limit, mingo: expected, omgdb: got,
        documents: docs.filter((d) => got.includes(d._id) || expected.includes(d._id)),
      });
    });

    // ---- updates
    await runUpdates(call);

    // ---- aggregation pipelines (pipelines.mjs, its overrides and pipeline_golden.mjs)
    await runPipelineDiff({ call, rnd, record, fail, scale: SCALE });
    for (const r of await runPipelineGolden(call)) {
      if (r.ok) record('pipe-gold', 'passed');
      else fail('pipe-gold', r.name, { expected: r.expected, omgdb: r.got, note: r.note });
    }

    // ---- golden checks of MongoDB's documented behaviour for the allowlisted rows
    const g = await runGolden(call);
    for (const r of g) {
      if (r.ok) record('golden', 'passed');
      else fail('golden', r.name, { expected: r.expected, omgdb: r.got, note: r.note });
    }
  } catch (e) {
    console.log(`differential: harness error: ${e.stack || e.message}`);
    stats.failed++;
  } finally {
    if (session) await session.close();
    rmSync(dir, { recursive: true, force: true });
  }

  for (const [kind, k] of Object.entries(stats.byKind)) {
    console.log(`  ${kind.padEnd(10)} passed ${k.passed}, allowlisted ${k.allowlisted}, failed ${k.failed}`);
  }
  console.log(`  update-q cases where the update changed something: ${changedByQuery}`);
  if (Object.keys(allowCounts).length) console.log(`  allowlisted documents by row: ${show(allowCounts)}`);
  if (printed > MAX_PRINTED_FAILURES) console.log(`  (${printed - MAX_PRINTED_FAILURES} more failures not printed)`);
  console.log(`  seed ${SEED}, scale ${SCALE}; passed counts allowlisted cases (checked against the allowlist rows)`);
  console.log(`differential: ${stats.passed + stats.allowlisted} passed, ${stats.failed} failed`);
  // exitCode, not exit(): exit() can cut stdout short when it is a pipe (ctest).
  process.exitCode = stats.failed ? 1 : 0;
}

// A filter keeping documents whose value at `path` reaches no array on the way or at the end.
function arrayFreeFilter(path) {
  const parts = path.split('.');
  const conds = [];
  for (let i = 1; i <= parts.length; i++) conds.push({ [parts.slice(0, i).join('.')]: { $not: { $type: 'array' } } });
  conds.push({ [path]: { $not: { $type: 'object' } } });
  return { $and: conds };
}

// ---------------------------------------------------------------------------------------------
// Updates: each case has its own 4 documents (ids case*10 + j) and one update_many limited to
// them by an _id range; cases are spread over collections of 50 cases so each scan is short.

function genUpdateDoc(id) {
  const d = { _id: id };
  if (chance(0.85)) d.n = chance(0.9) ? pick(INTS.concat(DOUBLES)) : pick(STRINGS);
  if (chance(0.85)) d.arr = Array.from({ length: int(0, 5) }, () => (chance(0.85) ? pick(INTS) : pick(STRINGS)));
  if (chance(0.8)) d.ds = Array.from({ length: int(0, 4) }, () => ({ x: pick(INTS), y: pick(INTS) }));
  if (chance(0.8)) d.o = { p: pick(INTS), q: { r: pick(INTS), s: pick(STRINGS) } };
  if (chance(0.5)) d.s = pick(STRINGS);
  if (chance(0.3)) d.m = Array.from({ length: int(1, 3) }, () => Array.from({ length: int(0, 3) }, () => pick(INTS)));
  return d;
}

// Each generator returns [rootField, operator, path, argument, arrayFilters?].
const UPDATE_GENS = [
  () => { const p = pick(['n', 'o.p', 'o.q.r', 'new', 'o.new', 'o.q.new', 'arr.1', 'arr.6', 'ds.0.x', 'ds.1.z', 's']); return ['$set', p, chance(0.8) ? genScalar() : genObject(0)]; },
  () => ['$set', 'arr.$[]', pick(INTS)],
  () => ['$set', 'ds.$[].x', pick(INTS)],
  () => ['$set', 'arr.$[e]', pick(INTS), [{ e: { [pick(['$gt', '$lt', '$eq', '$gte'])]: pick(INTS) } }]],
  () => ['$set', 'ds.$[d].y', pick(INTS), [{ 'd.x': { [pick(['$gt', '$lt', '$eq'])]: pick(INTS) } }]],
  () => ['$set', 'm.$[].$[k]', 9, [{ k: { $gte: pick(INTS) } }]],
  () => ['$unset', pick(['n', 'o.p', 'o.q', 'o.q.r', 'arr.0', 'arr.9', 'ds.0.x', 'missing', 's', 'o.zz']), ''],
  () => ['$inc', pick(['n', 'o.p', 'o.q.r', 'arr.0', 'cnt', 'o.cnt', 'ds.1.x']), pick([1, -2, 3, 0.5])],
  () => ['$inc', 'arr.$[]', 1],
  () => ['$inc', 'ds.$[d].x', 10, [{ 'd.y': { $lte: pick(INTS) } }]],
  () => ['$mul', pick(['n', 'o.p', 'o.q.r', 'arr.1', 'cnt']), pick([2, -1, 0, 1.5])],
  () => ['$min', pick(['n', 'o.p', 'o.q.r', 'cnt', 's']), genCmpValue()],
  () => ['$max', pick(['n', 'o.p', 'o.q.r', 'cnt', 's']), genCmpValue()],
  () => { const [from, to] = pick([['n', 'nn'], ['o.p', 'o.pp'], ['o', 'oo'], ['s', 'o.s2'], ['missing', 'zz'], ['o.q.r', 'o.q.s']]); return ['$rename', from, to]; },
  () => ['$push', 'arr', pick(INTS)],
  () => {
    const each = Array.from({ length: int(0, 3) }, () => pick(INTS));
    const m = { $each: each };
    if (chance(0.5)) m.$slice = pick([0, 1, 2, -1, -2, 5]);
    if (chance(0.5)) m.$sort = pick([1, -1]);
    if (chance(0.4)) m.$position = pick([0, 1, -1, 2, 10]);
    return ['$push', 'arr', m];
  },
  () => {
    const m = { $each: Array.from({ length: int(1, 2) }, () => ({ x: pick(INTS), y: pick(INTS) })) };
    // Single-key sorts only: ALLOWLIST row `push-sort-compound`.
    if (chance(0.7)) m.$sort = pick([{ x: 1 }, { x: -1 }, { y: 1 }, { y: -1 }]);
    if (chance(0.5)) m.$slice = pick([1, 3, -2]);
    return ['$push', 'ds', m];
  },
  () => ['$push', pick(['newarr', 'o.list']), pick(INTS)],
  // `$each` values without duplicates: on a missing field mingo keeps them, MongoDB does not
  // (part of ALLOWLIST row `addtoset-duplicates`).
  () => ['$addToSet', 'arr', chance(0.5) ? pick(INTS) : { $each: [...new Set(Array.from({ length: int(1, 3) }, () => pick(INTS)))] }],
  () => ['$addToSet', 'ds', { x: pick(INTS), y: pick(INTS) }],
  () => ['$pop', pick(['arr', 'ds', 'missing']), pick([1, -1])],
  () => ['$pull', 'arr', pick([pick(INTS), { $gte: pick(INTS) }, { $in: [pick(INTS), pick(INTS)] }, { $lt: 2 }])],
  () => ['$pull', 'ds', pick([{ x: pick(INTS) }, { x: { $gt: pick(INTS) } }, { x: pick(INTS), y: pick(INTS) }])],
  () => ['$pullAll', 'arr', Array.from({ length: int(1, 3) }, () => pick(INTS))],
];

function rootOf(path) {
  return path.split('.')[0];
}

function genUpdate() {
  const update = {};
  const arrayFilters = [];
  const roots = new Set();
  const n = int(1, 3);
  for (let tries = 0; tries < 10 && roots.size < n; tries++) {
    const [op, path, arg, af] = UPDATE_GENS[Math.floor(rnd() * UPDATE_GENS.length)]();
    const touched = op === '$rename' ? [rootOf(path), rootOf(arg)] : [rootOf(path)];
    if (touched.some((r) => roots.has(r))) continue; // conflicting paths: not generated
    if (af && arrayFilters.some((f) => Object.keys(f).some((k) => Object.keys(af[0]).some((j) => k.split('.')[0] === j.split('.')[0])))) continue;
    touched.forEach((r) => roots.add(r));
    (update[op] ??= {})[path] = arg;
    if (af) arrayFilters.push(...af);
  }
  return { update, arrayFilters };
}

// Applies the update with mingo to each document; any throw fails the whole case (update_many
// is one atomic commit in omgdb). Returns { docs } or { error }.
function mingoApply(docs, c) {
  const out = [];
  for (const d of docs) {
    const copy = clone(d);
    try {
      if (c.cond && !new Query(c.cond).test(clone(d))) {
        out.push(copy);
        continue;
      }
      mingoUpdate(copy, clone(c.update), c.arrayFilters.length ? clone(c.arrayFilters) : undefined, c.cond ? clone(c.cond) : undefined);
    } catch (e) {
      return { error: e.message };
    }
    out.push(copy);
  }
  return { docs: out };
}

// True when the update applies $inc/$mul to a non-number in one of the documents (MongoDB
// errors; mingo ignores it): ALLOWLIST row `inc-on-non-number`.
function incOnNonNumber(docs, c) {
  for (const op of ['$inc', '$mul']) {
    for (const path of Object.keys(c.update[op] ?? {})) {
      for (const d of docs) {
        const vals = resolveUpdatePath(d, path, c.arrayFilters);
        if (vals.some((v) => v !== undefined && typeof v !== 'number')) return true;
      }
    }
  }
  return false;
}

// True when a `$[]`/`$[id]` path's array is missing in one of the documents.
function arrayUpdateOnMissing(docs, c) {
  for (const ops of Object.values(c.update)) {
    for (const path of Object.keys(ops)) {
      const parts = path.split('.');
      const i = parts.findIndex((p) => p.startsWith('$['));
      if (i < 0) continue;
      const prefix = parts.slice(0, i).join('.');
      if (docs.some((d) => resolveUpdatePath(d, prefix).some((v) => v === undefined))) return true;
    }
  }
  return false;
}

function addToSetOnDuplicates(docs, c) {
  if (!c.update.$addToSet) return false;
  const f = Object.keys(c.update.$addToSet)[0];
  return docs.some((d) => Array.isArray(d[f]) && new Set(d[f].map((e) => canonStr(e))).size !== d[f].length);
}

function resolveUpdatePath(doc, path, arrayFilters) {
  let vs = [doc];
  for (const part of path.split('.')) {
    const next = [];
    for (const v of vs) {
      if (v === null || typeof v !== 'object') continue;
      if (part === '$[]' || part.startsWith('$[')) {
        if (Array.isArray(v)) next.push(...v);
      } else next.push(v[part]);
    }
    vs = next;
  }
  return vs;
}

let changedByQuery = 0;

async function runUpdates(call) {
  const cases = [];
  for (let k = 0; k < N_UPDATE_CASES; k++) {
    const docs = Array.from({ length: UPDATE_DOCS_PER_CASE }, (_, j) => genUpdateDoc(k * 10 + j));
    const c = { k, docs, ...genUpdate(), coll: `u${Math.floor(k / UPDATE_CASES_PER_COLLECTION)}` };
    if (chance(0.2)) {
      // A filter beyond the _id range: only matching documents change; with the positional
      // `$` it names the element the query matched (MongoDB's rule: the first array the filter
      // traversed).
      const [cond, path, op, arg] = pick([
        [{ arr: { $gte: pick(INTS) } }, 'arr.$', '$set', pick(INTS)],
        [{ arr: pick(INTS) }, 'arr.$', '$inc', 2],
        [{ 'ds.x': pick(INTS) }, 'ds.$.y', '$set', 99],
        [{ ds: { $elemMatch: { x: { $gte: pick(INTS) }, y: { $lte: pick(INTS) } } } }, 'ds.$.x', '$mul', 3],
        [{ n: { $gte: pick(INTS) } }, 'cnt', '$inc', 1],
        [{ 'o.p': { $in: [pick(INTS), pick(INTS)] } }, 'o.flag', '$set', true],
      ]);
      c.update = { [op]: { [path]: arg } };
      c.arrayFilters = [];
      c.cond = cond;
    }
    // Rewrites for ALLOWLIST rows `push-modifiers-on-missing-field` and `addtoset-duplicates`:
    // the documents get the array the case needs (empty, or without duplicates).
    for (const [f, arg] of Object.entries(c.update.$push ?? {})) {
      if (arg && typeof arg === 'object' && '$each' in arg) for (const d of docs) if (!(f in d)) d[f] = [];
    }
    // Most `$[]`/`$[id]` cases get their array in every document, so that they test the update
    // rather than the missing-array error (row `array-update-missing-path`, kept for the rest).
    if (chance(0.8)) {
      for (const ops of Object.values(c.update)) {
        for (const path of Object.keys(ops)) {
          if (!path.includes('$[')) continue;
          const f = path.split('.')[0];
          for (const d of docs) if (!(f in d)) d[f] = f === 'm' ? [[1, 4]] : f === 'ds' ? [{ x: 1, y: 2 }] : [3];
        }
      }
    }
    for (const f of Object.keys(c.update.$addToSet ?? {})) {
      for (const d of docs) {
        if (Array.isArray(d[f])) {
          const seen = new Set();
          d[f] = d[f].filter((e) => !seen.has(canonStr(e)) && seen.add(canonStr(e)));
        }
      }
    }
    cases.push(c);
  }
  // Insert every case's documents, one insert_many per collection.
  const byColl = new Map();
  for (const c of cases) {
    if (!byColl.has(c.coll)) byColl.set(c.coll, []);
    byColl.get(c.coll).push(...c.docs);
  }
  await pool([...byColl.entries()], 4, async ([coll, ds]) => {
    const r = await call('insert_many', { collection: coll, documents: ds });
    if (r.isError) throw new Error(`insert_many ${coll} failed: ${r.text}`);
  });
  // Updates: cases of one collection run one after another; collections run side by side.
  const results = new Map();
  await pool([...byColl.keys()], 4, async (coll) => {
    for (const c of cases.filter((x) => x.coll === coll)) {
      const range = { _id: { $gte: c.k * 10, $lt: c.k * 10 + 10 } };
      const args = { collection: coll, filter: c.cond ? { $and: [range, c.cond] } : range, update: c.update };
      if (c.arrayFilters.length) args.arrayFilters = c.arrayFilters;
      results.set(c.k, await call('update_many', args));
    }
  });
  // Read everything back.
  const after = new Map();
  await pool([...byColl.keys()], 4, async (coll) => {
    const r = await call('find', { collection: coll, limit: BIG });
    if (r.isError) throw new Error(`find ${coll} failed: ${r.text}`);
    for (const d of parseNdjson(r.text)) after.set(d._id, d);
  });
  for (const c of cases) {
    const caseNo = c.k + 1;
    const kind = c.cond ? 'update-q' : 'update'; // update-q: with a query filter (and positional `$`)
    if (c.cond && canonStr(mingoApply(c.docs, c).docs ?? []) !== canonStr(c.docs)) changedByQuery++;
    const res = results.get(c.k);
    const exp = mingoApply(c.docs, c);
    if (exp.docs && c.update.$set && 'm.$[].$[k]' in c.update.$set && c.docs.every((d) => Array.isArray(d.m))) {
      // ALLOWLIST row `nested-positional`: mingo skips `m.$[].$[k]`; expected value computed here.
      const bound = c.arrayFilters.find((f) => 'k' in f).k.$gte;
      exp.docs.forEach((d, j) => {
        d.m = c.docs[j].m.map((inner) => inner.map((e) => (typeof e === 'number' && e >= bound ? c.update.$set['m.$[].$[k]'] : e)));
      });
    }
    const got = c.docs.map((d) => after.get(d._id));
    const base = { documents: c.docs, filter: c.cond ?? '(the case\'s _id range)', update: c.update, arrayFilters: c.arrayFilters };
    if (arrayUpdateOnMissing(c.docs, c)) {
      // ALLOWLIST row `array-update-missing-path`: MongoDB fails the whole update_many.
      allowCounts['array-update-missing-path'] = (allowCounts['array-update-missing-path'] ?? 0) + 1;
      if (res.isError && canonStr(got) === canonStr(c.docs)) record(kind, 'allowlisted');
      else fail(kind, caseNo, { ...base, expected: 'an error (MongoDB: the path must exist for array updates), documents unchanged', omgdb: res.text, 'omgdb documents': got });
      continue;
    }
    if (incOnNonNumber(c.docs, c)) {
      // Allowlisted row: MongoDB errors and leaves the documents unchanged.
      allowCounts['inc-on-non-number'] = (allowCounts['inc-on-non-number'] ?? 0) + 1;
      if (res.isError && canonStr(got) === canonStr(c.docs)) record(kind, 'allowlisted');
      else fail(kind, caseNo, { ...base, expected: 'an error (MongoDB: $inc/$mul of a non-number), documents unchanged', omgdb: res.text, 'omgdb documents': got });
      continue;
    }
    if (exp.error !== undefined || res.isError) {
      if (exp.error !== undefined && res.isError) {
        if (canonStr(got) === canonStr(c.docs)) record(kind, 'passed');
        else fail(kind, caseNo, { ...base, note: 'the failed update changed documents', 'omgdb documents': got });
      } else {
        fail(kind, caseNo, { ...base, mingo: exp.error ?? exp.docs, omgdb: res.isError ? res.text : got });
      }
      continue;
    }
    if (canonStr(got) === canonStr(exp.docs)) {
      record(kind, 'passed');
      continue;
    }
    if (addToSetOnDuplicates(c.docs, c)) {
      // ALLOWLIST row `addtoset-duplicates`: compare without the $addToSet field.
      const f = Object.keys(c.update.$addToSet)[0];
      const strip = (ds) => ds.map((d) => { const x = clone(d); delete x[f]; return x; });
      if (canonStr(strip(got)) === canonStr(strip(exp.docs))) {
        allowCounts['addtoset-duplicates'] = (allowCounts['addtoset-duplicates'] ?? 0) + 1;
        record(kind, 'allowlisted');
        continue;
      }
    }
    const j = exp.docs.findIndex((d, i) => canonStr(d) !== canonStr(got[i]));
    fail(kind, caseNo, { ...base, document: c.docs[j], mingo: exp.docs[j], omgdb: got[j], 'omgdb result': res.text });
  }
}

await main();
