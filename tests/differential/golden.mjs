// Golden checks for the rows of differential.mjs's ALLOWLIST: where mingo differs from
// MongoDB, omgdb is checked against MongoDB's documented behaviour instead. Every expected
// value below is written from MongoDB's documentation (manual pages named in each entry, and
// the notes ../../../shared/notes/document-engine.md §2), never from omgdb's output.
//
// runGolden(call) returns [{ name, ok, expected, got, note }].

function parseNdjson(text) {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}

// Each check: a collection, documents, then one tool call and the expected outcome.
// `expect.ids`: the _id list in order; `expect.error`: a substring-free "any error";
// `expect.keys`: the exact key order of each returned document (raw text order).
const CHECKS = [
  {
    name: 'nested-array-traversal: {"a.b": 1} does not match a: [[1, 2], 3]',
    // MongoDB: "Query an Array of Embedded Documents" / dotted paths expand one array level
    // per component; notes §2 row 1.
    docs: [{ _id: 1, a: [[1, 2], 3] }, { _id: 2, a: [[{ b: 1 }]] }, { _id: 3, a: [{ b: 1 }] }],
    call: ['find', { filter: { 'a.b': 1 }, project: { _id: 1 } }],
    expect: { ids: [3] },
  },
  {
    name: 'dotted-path-through-array: {"a.b": null} matches a: [{c: 2}] and, since 9.0, a: [1, 2]',
    // MongoDB manual "Query for Null or Missing Fields": a missing branch matches null; notes
    // §2 row 2. `a: [1, 2]` (array of scalars) did not match in 8.0 and matches in 9.0 (the
    // `null-dotted-path-9.0` row; omgdb follows 9.0, issue 15 #2).
    docs: [{ _id: 1, a: [{ c: 2 }] }, { _id: 2, a: [{ b: 1 }] }, { _id: 3, a: [1, 2] }, { _id: 4 }],
    call: ['find', { filter: { 'a.b': null }, project: { _id: 1 } }],
    expect: { ids: [1, 3, 4] },
  },
  {
    name: 'null-dotted-path-9.0: {"a.b": null} matches a: [1] and a: [] (MongoDB 9.0)',
    // MongoDB 9.0 compatibility notes, "Null Comparisons on Dotted Paths That Traverse Arrays":
    // a dotted path that does not resolve to a non-null value evaluates as null when a field on
    // the path holds an empty array, an array of scalars or an array containing a nested array.
    docs: [{ _id: 1, a: [1] }, { _id: 2, a: [] }, { _id: 3, a: [[{ b: 1 }]] }, { _id: 4, a: [{ b: 1 }] }],
    call: ['find', { filter: { 'a.b': null }, project: { _id: 1 } }],
    expect: { ids: [1, 2, 3] },
  },
  {
    name: 'null-dotted-path-9.0: {"a.b": {$ne: null}} is the opposite',
    // Same page: "The { "a.b": { $ne: null } } query returns the opposite result".
    docs: [{ _id: 1, a: [1] }, { _id: 2, a: [] }, { _id: 3, a: [[{ b: 1 }]] }, { _id: 4, a: [{ b: 1 }] }],
    call: ['find', { filter: { 'a.b': { $ne: null } }, project: { _id: 1 } }],
    expect: { ids: [4] },
  },
  {
    name: 'dotted-path-through-array: {"b.z": {$size: 2}} does not count values collected from elements',
    // MongoDB manual $size / "Query an Array of Embedded Documents": the operator applies to
    // the value at the path in each element; no array sits at `b.z` here.
    docs: [{ _id: 1, b: [{ z: 3 }, { z: null }] }, { _id: 2, b: [{ z: [1, 2] }] }, { _id: 3, b: { z: [1, 2] } }],
    call: ['find', { filter: { 'b.z': { $size: 2 } }, project: { _id: 1 } }],
    expect: { ids: [2, 3] },
  },
  {
    name: 'dotted-path-through-array: {"b.x": {$gt: -1}} traverses an array inside an element',
    docs: [{ _id: 1, b: [{ x: [4, 'b'] }] }, { _id: 2, b: [{ x: 'a' }] }, { _id: 3, b: [{ x: -2 }, { x: 0 }] }],
    call: ['find', { filter: { 'b.x': { $gt: -1 } }, project: { _id: 1 } }],
    expect: { ids: [1, 3] },
  },
  {
    name: 'dotted-path-through-array: {"d.y": [""]} is not equal to the collected values',
    docs: [{ _id: 1, d: [{ y: '' }] }, { _id: 2, d: [{ y: [''] }] }],
    call: ['find', { filter: { 'd.y': [''] }, project: { _id: 1 } }],
    expect: { ids: [2] },
  },
  {
    name: 'dotted-path-through-array: {"a.x": {$type: "array"}} needs an array at a.x',
    docs: [{ _id: 1, a: [{ x: 1 }, { x: 2 }] }, { _id: 2, a: [{ x: [1] }] }],
    call: ['find', { filter: { 'a.x': { $type: 'array' } }, project: { _id: 1 } }],
    expect: { ids: [2] },
  },
  {
    name: 'descending-sort-of-arrays: {a: -1} sorts arrays by their largest element',
    // MongoDB manual cursor.sort() "Sort by an Array Field": descending uses the maximum.
    docs: [{ _id: 1, a: [0, 5] }, { _id: 2, a: 4 }, { _id: 3, a: [2, 3] }, { _id: 4, a: [6, -1] }],
    call: ['find', { sort: { a: -1 }, project: { _id: 1 } }],
    expect: { ids: [4, 1, 2, 3] },
  },
  {
    name: 'ascending sort of arrays uses the smallest element',
    docs: [{ _id: 1, a: [0, 5] }, { _id: 2, a: 4 }, { _id: 3, a: [2, 3] }, { _id: 4, a: [6, -1] }],
    call: ['find', { sort: { a: 1 }, project: { _id: 1 } }],
    expect: { ids: [4, 1, 3, 2] },
  },
  {
    name: 'mod-non-integers: {$mod: [3, 0]} truncates fractions and matches numbers only',
    // MongoDB manual $mod: "truncates the dividend ... toward zero" (since 5.1? documented
    // under "Floating Point Arguments"); non-numbers (null, bool, strings) never match.
    docs: [{ _id: 1, a: 0.5 }, { _id: 2, a: null }, { _id: 3, a: false }, { _id: 4, a: 3.7 }, { _id: 5, a: 4 },
      { _id: 6 }, { _id: 7, a: [1, 6.2] }, { _id: 8, a: '3' }],
    call: ['find', { filter: { a: { $mod: [3, 0] } }, project: { _id: 1 } }],
    expect: { ids: [1, 4, 7] },
  },
  {
    name: 'mod-non-integers: {$mod: [4, -1]} keeps the sign of the dividend',
    docs: [{ _id: 1, a: -5 }, { _id: 2, a: 3 }, { _id: 3, a: -1.9 }],
    call: ['find', { filter: { a: { $mod: [4, -1] } }, project: { _id: 1 } }],
    expect: { ids: [1, 3] },
  },
  {
    name: 'elemmatch-non-document-elements: document form skips scalars and nulls',
    // MongoDB manual $elemMatch: the query is applied to embedded documents; an array
    // element is traversed as a document keyed by indexes (jstests elemmatch tests).
    docs: [{ _id: 1, a: [5, null] }, { _id: 2, a: [{ y: 1 }] }, { _id: 3, a: [[{ x: 1 }]] }, { _id: 4, a: [{ x: 1 }] }],
    call: ['find', { filter: { a: { $elemMatch: { x: null } } }, project: { _id: 1 } }],
    expect: { ids: [2, 3] },
  },
  {
    name: 'null-range-missing: {a: {$gte: null}} matches null and missing, not values',
    // MongoDB manual "Query for Null or Missing Fields"; comparison with null.
    docs: [{ _id: 1, a: null }, { _id: 2 }, { _id: 3, a: 1 }, { _id: 4, a: [null, 2] }],
    call: ['find', { filter: { a: { $gte: null } }, project: { _id: 1 } }],
    expect: { ids: [1, 2, 4] },
  },
  {
    name: 'type-array-elements: {a: {$type: "bool"}} matches an array holding a bool',
    // MongoDB manual $type "Querying by Array Type": elements are checked.
    docs: [{ _id: 1, a: [true] }, { _id: 2, a: [1, 'x'] }, { _id: 3, a: false }, { _id: 4, a: [[true]] }],
    call: ['find', { filter: { a: { $type: 'bool' } }, project: { _id: 1 } }],
    expect: { ids: [1, 3] },
  },
  {
    name: 'array-value-equality: {a: {$in: [[]]}} and {a: []} match a: [] and a: [[]]',
    // MongoDB manual "Query an Array": equality with an array value matches the whole array
    // or an element equal to it.
    docs: [{ _id: 1, a: [] }, { _id: 2, a: [[]] }, { _id: 3, a: [1] }, { _id: 4 }],
    call: ['find', { filter: { a: { $in: [[]] } }, project: { _id: 1 } }],
    expect: { ids: [1, 2] },
  },
  {
    name: 'nested-array-traversal: a regex does not look into nested arrays',
    docs: [{ _id: 1, b: [['A']] }, { _id: 2, b: ['A'] }, { _id: 3, b: 'Ab' }],
    call: ['find', { filter: { b: { $regex: '^A' } }, project: { _id: 1 } }],
    expect: { ids: [2, 3] },
  },
  {
    name: 'mingo-projection-crash: exclusion of a dotted path through null keeps the document',
    docs: [{ _id: 1, c: { x: null, w: 1 } }, { _id: 2, c: null }],
    call: ['find', { project: { 'c.x.y': 0 } }],
    expect: { docs: [{ _id: 1, c: { x: null, w: 1 } }, { _id: 2, c: null }] },
  },
  {
    name: 'push-modifiers-on-missing-field: $push $each/$sort/$slice creates the array with the modifiers applied',
    // MongoDB manual $push: "If the field is absent ... adds the array field with the value as
    // its element"; the modifiers apply to the resulting array.
    docs: [{ _id: 1 }],
    call: ['update_many', { filter: {}, update: { $push: { a: { $each: [3, 1, 2], $sort: 1, $slice: 2 } } } }],
    expect: { after: [{ _id: 1, a: [1, 2] }] },
  },
  {
    name: 'push-sort-compound: $push $sort {x: 1, y: -1} sorts by both keys',
    // MongoDB manual $sort (update modifier): sort by a document of fields.
    docs: [{ _id: 1, d: [{ x: 1, y: 1 }, { x: 0, y: 0 }] }],
    call: ['update_many', { filter: {}, update: { $push: { d: { $each: [{ x: 1, y: 2 }], $sort: { x: 1, y: -1 } } } } }],
    expect: { after: [{ _id: 1, d: [{ x: 0, y: 0 }, { x: 1, y: 2 }, { x: 1, y: 1 }] }] },
  },
  {
    name: 'addtoset-duplicates: $addToSet keeps existing duplicates and appends a new value',
    // MongoDB manual $addToSet: "does not ... remove duplicates already in the array".
    docs: [{ _id: 1, a: [1, 1, 3] }],
    call: ['update_many', { filter: {}, update: { $addToSet: { a: { $each: [2, 3] } } } }],
    expect: { after: [{ _id: 1, a: [1, 1, 3, 2] }] },
  },
  {
    name: 'array-update-missing-path: $[] on a document without the array is an error and writes nothing',
    // MongoDB manual $[]: "If the array field is absent ... the update results in an error".
    docs: [{ _id: 1, a: [1] }, { _id: 2 }],
    call: ['update_many', { filter: {}, update: { $set: { 'a.$[]': 0 } } }],
    expect: { error: true, after: [{ _id: 1, a: [1] }, { _id: 2 }] },
  },
  {
    name: 'sort-document-order: embedded documents sort by value type before field name',
    // BSON comparison (MongoDB manual "Comparison/Sort Order", Objects): field by field,
    // comparing the type, then the field name, then the value.
    docs: [{ _id: 1, a: { z: 1 } }, { _id: 2, a: { y: [1] } }, { _id: 3, a: { y: 'x' } }],
    call: ['find', { sort: { a: 1 }, project: { _id: 1 } }],
    expect: { ids: [1, 3, 2] },
  },
  {
    name: 'projection-nested-arrays: {"a.y": 0} applies to documents inside nested arrays',
    docs: [{ _id: 1, a: [[{ y: 1, z: 2 }], { y: 3 }] }],
    call: ['find', { project: { 'a.y': 0 } }],
    expect: { docs: [{ _id: 1, a: [[{ z: 2 }], {}] }] },
  },
  {
    name: 'nested-positional: $set m.$[].$[k] with arrayFilters updates inner arrays',
    // MongoDB manual $[<identifier>] "Update Nested Arrays in Conjunction with $[]".
    docs: [{ _id: 1, m: [[-1, 5], [7]] }],
    call: ['update_many', { filter: {}, update: { $set: { 'm.$[].$[k]': 9 } }, arrayFilters: [{ k: { $gte: 3 } }] }],
    expect: { after: [{ _id: 1, m: [[-1, 9], [9]] }] },
  },
  {
    name: 'array-value-equality: {a: {$nin: [[null]]}} excludes a: [null]',
    docs: [{ _id: 1, a: [null] }, { _id: 2, a: [1] }, { _id: 3, a: [[null]] }],
    call: ['find', { filter: { a: { $nin: [[null], 4] } }, project: { _id: 1 } }],
    expect: { ids: [2] },
  },
  {
    name: 'slice-with-exclusion: {a: 0, b: {$slice: 1}} returns the other fields and the slice',
    // MongoDB manual $slice (projection): "db.inventory.find({}, {qty: 0, details: {$slice: 1}})"
    // style: exclusion with $slice is allowed since 4.4.
    docs: [{ _id: 1, a: 1, b: [1, 2, 3], c: 'x' }],
    call: ['find', { project: { a: 0, b: { $slice: 1 } } }],
    expect: { docs: [{ _id: 1, b: [1], c: 'x' }] },
  },
  {
    name: 'projection-elemmatch-non-documents: {c: {$elemMatch: {y: {$exists: true}}}} skips scalars',
    docs: [{ _id: 1, c: [3, { y: 1 }] }, { _id: 2, c: [3] }],
    call: ['find', { project: { c: { $elemMatch: { y: { $exists: true } } } } }],
    expect: { docs: [{ _id: 1, c: [{ y: 1 }] }, { _id: 2 }] },
  },
  {
    name: 'projection-elemmatch-value-form: {b: {$elemMatch: {$gt: 4}}} returns the first element above 4',
    // MongoDB: the projection's $elemMatch takes the query operator's argument.
    docs: [{ _id: 1, a: 1, b: [1, 5, 7] }, { _id: 2, b: [1] }],
    call: ['find', { project: { b: { $elemMatch: { $gt: 4 } } } }],
    expect: { docs: [{ _id: 1, b: [5] }, { _id: 2 }] },
  },
  {
    name: 'inc-on-non-number: $inc of a string is an error and writes nothing',
    // MongoDB manual $inc: "Use of the $inc operator on a field with a null value will
    // generate an error" / non-numeric fields: "Cannot apply $inc to a value of non-numeric type".
    docs: [{ _id: 1, s: 'x' }],
    call: ['update_many', { filter: {}, update: { $inc: { s: 1 } } }],
    expect: { error: true, after: [{ _id: 1, s: 'x' }] },
  },
  {
    name: 'inc-on-non-number: $mul of a string is an error',
    // MongoDB manual $mul: only numeric fields.
    docs: [{ _id: 1, s: 'x' }],
    call: ['update_many', { filter: {}, update: { $mul: { s: 2 } } }],
    expect: { error: true, after: [{ _id: 1, s: 'x' }] },
  },
  {
    name: 'set-field-order: $set of new fields appends them in lexicographic order',
    // MongoDB 5.0+ update semantics: fields are updated in lexicographic order.
    docs: [{ _id: 1, z: 0 }],
    call: ['update_many', { filter: {}, update: { $set: { c: 1, b: 1, a: 1 } } }],
    expect: { keysAfter: [['_id', 'z', 'a', 'b', 'c']] },
  },
  {
    name: 'projection-id-first: an inclusion projection returns _id first',
    // MongoDB manual "Project Fields to Return from Query": _id is returned first.
    docs: [{ _id: 1, b: 2, a: 1, c: 3 }],
    call: ['find', { project: { c: 1, a: 1 } }],
    expect: { keys: [['_id', 'a', 'c']] },
  },
  {
    name: 'input validation: {a: {$not: "x"}} is an error',
    // MongoDB manual $not: the operand must be an operator expression or a regex.
    docs: [{ _id: 1, a: 'x' }],
    call: ['find', { filter: { a: { $not: 'x' } } }],
    expect: { error: true },
  },
  {
    name: 'input validation: {$and: []} is an error',
    // MongoDB manual $and: a non-empty array.
    docs: [{ _id: 1 }],
    call: ['find', { filter: { $and: [] } }],
    expect: { error: true },
  },
  {
    name: '$expr cross-type: {$gt: ["x", 1]} is true',
    // Aggregation comparison uses BSON order across types (strings > numbers).
    docs: [{ _id: 1 }, { _id: 2 }],
    call: ['find', { filter: { $expr: { $gt: ['x', 1] } }, project: { _id: 1 } }],
    expect: { ids: [1, 2] },
  },
  {
    name: '$expr: {$lt: ["$a", 5]} matches null and missing',
    docs: [{ _id: 1, a: null }, { _id: 2 }, { _id: 3, a: 7 }, { _id: 4, a: 1 }],
    call: ['find', { filter: { $expr: { $lt: ['$a', 5] } }, project: { _id: 1 } }],
    expect: { ids: [1, 2, 4] },
  },
  {
    name: '$expr: {$eq: ["$missing", null]} is false',
    docs: [{ _id: 1 }, { _id: 2, missing: null }],
    call: ['find', { filter: { $expr: { $eq: ['$missing', null] } }, project: { _id: 1 } }],
    expect: { ids: [2] },
  },
];

function keysInTextOrder(line) {
  // JSON.parse keeps insertion order for non-integer keys, which is the text order here.
  return Object.keys(JSON.parse(line));
}

export async function runGolden(call) {
  const out = [];
  let i = 0;
  for (const c of CHECKS) {
    const coll = `golden${i++}`;
    const ins = await call('insert_many', { collection: coll, documents: c.docs });
    if (ins.isError) {
      out.push({ name: c.name, ok: false, expected: 'insert_many to succeed', got: ins.text });
      continue;
    }
    const [tool, args] = c.call;
    const r = await call(tool, { collection: coll, ...args });
    const e = c.expect;
    let ok = true;
    let got = r.text;
    if (e.error !== undefined) ok = r.isError === e.error;
    if (ok && e.ids) ok = !r.isError && JSON.stringify(parseNdjson(r.text).map((d) => d._id)) === JSON.stringify(e.ids);
    if (ok && e.docs) {
      got = r.text;
      ok = !r.isError && JSON.stringify(parseNdjson(r.text)) === JSON.stringify(e.docs);
    }
    if (ok && e.keys) {
      const ks = r.text.split('\n').filter((l) => l.trim()).map(keysInTextOrder);
      got = ks;
      ok = !r.isError && JSON.stringify(ks) === JSON.stringify(e.keys);
    }
    if (ok && (e.after || e.keysAfter)) {
      const f = await call('find', { collection: coll });
      got = f.text;
      if (e.after) ok = JSON.stringify(parseNdjson(f.text)) === JSON.stringify(e.after);
      if (ok && e.keysAfter) {
        const ks = f.text.split('\n').filter((l) => l.trim()).map(keysInTextOrder);
        got = ks;
        ok = JSON.stringify(ks) === JSON.stringify(e.keysAfter);
      }
    }
    out.push({ name: c.name, ok, expected: e, got, note: r.isError ? `error: ${r.text}` : undefined });
  }
  return out;
}
