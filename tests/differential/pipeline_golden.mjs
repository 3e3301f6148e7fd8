// Golden pipeline checks: the tricky parts of aggregation, each expected value written from
// MongoDB's manual (the page named in each entry), never from omgdb's output. Output order is
// compared exactly (each pipeline ends in a $sort or keeps scan order, which is `_id` order).
//
// runPipelineGolden(call) returns [{ name, ok, expected, got, note }].

function parseNdjson(text) {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}

const CHECKS = [
  {
    name: '$group: a missing group key and a null one form the same group',
    // $group manual: "If you specify an _id value of null … the grouping … null and missing
    // values are grouped together" ("Group by Null").
    docs: [{ _id: 1, x: null }, { _id: 2 }, { _id: 3, x: 1 }, { _id: 4, x: 1.0 }],
    pipeline: [{ $group: { _id: '$x', c: { $sum: 1 } } }, { $sort: { _id: 1 } }],
    expect: [{ _id: null, c: 2 }, { _id: 1, c: 2 }],
  },
  {
    name: '$group: $push skips missing values, $first gives null for them',
    // $push manual; $first manual "Missing Values": "$first … returns null for missing".
    docs: [{ _id: 1, g: 1 }, { _id: 2, g: 1, v: 5 }],
    pipeline: [{ $group: { _id: '$g', p: { $push: '$v' }, f: { $first: '$v' } } }],
    expect: [{ _id: 1, p: [5], f: null }],
  },
  {
    name: '$unwind: a non-array operand is a one-element array; null, missing and [] are dropped',
    // $unwind manual "Non-Array Field Path" and "Missing or Null Values".
    docs: [{ _id: 1, s: ['S', 'M'] }, { _id: 2, s: 'L' }, { _id: 3, s: null }, { _id: 4 }, { _id: 5, s: [] }],
    pipeline: [{ $unwind: '$s' }],
    expect: [{ _id: 1, s: 'S' }, { _id: 1, s: 'M' }, { _id: 2, s: 'L' }],
  },
  {
    name: '$unwind with preserveNullAndEmptyArrays and includeArrayIndex',
    // $unwind manual "preserveNullAndEmptyArrays" / "includeArrayIndex": a non-array gets index null.
    docs: [{ _id: 1, s: ['S', 'M'] }, { _id: 2, s: 'L' }, { _id: 3, s: null }, { _id: 4 }, { _id: 5, s: [] }],
    pipeline: [{ $unwind: { path: '$s', includeArrayIndex: 'i', preserveNullAndEmptyArrays: true } }],
    expect: [{ _id: 1, s: 'S', i: 0 }, { _id: 1, s: 'M', i: 1 }, { _id: 2, s: 'L', i: null },
      { _id: 3, s: null, i: null }, { _id: 4, i: null }, { _id: 5, i: null }],
  },
  {
    name: '$lookup: an array localField matches each of its elements',
    // $lookup manual "Use $lookup with an Array" (classes.enrollmentlist against members.name).
    docs: [{ _id: 1, title: 'reading', enrollmentlist: ['giraffe2', 'pandabear', 'artie'] },
      { _id: 2, title: 'chess', enrollmentlist: ['giraffe1', 'artie'] }],
    foreign: ['members', [{ _id: 1, name: 'artie' }, { _id: 2, name: 'pandabear' }, { _id: 3, name: 'giraffe1' },
      { _id: 4, name: 'giraffe2' }, { _id: 5, name: 'nobody' }]],
    pipeline: [{ $lookup: { from: 'members', localField: 'enrollmentlist', foreignField: 'name', as: 'm' } },
      { $project: { m: '$m._id' } }],
    expect: [{ _id: 1, m: [1, 2, 4] }, { _id: 2, m: [1, 3] }],
  },
  {
    name: '$lookup: a foreign array field matches by element; a missing localField matches null and missing',
    // $lookup manual "Equality Match with a Single Join Condition" (null / missing) and
    // "Perform a Single Equality Join … with an Array" (foreign arrays).
    docs: [{ _id: 1, k: 'a' }, { _id: 2 }],
    foreign: ['fk', [{ _id: 1, t: ['a', 'b'] }, { _id: 2, t: null }, { _id: 3 }, { _id: 4, t: 'c' }]],
    pipeline: [{ $lookup: { from: 'fk', localField: 'k', foreignField: 't', as: 'm' } }, { $project: { m: '$m._id' } }],
    expect: [{ _id: 1, m: [1] }, { _id: 2, m: [2, 3] }],
  },
  {
    name: '$dateAdd / $dateDiff by day across a DST change keep the local time; hours are exact',
    // $dateAdd manual "Adjust for Daylight Savings Time": a day in a time zone is a local
    // calendar day (23 hours on 2024-03-10 in America/New_York), an hour is 60 minutes.
    docs: [{ _id: 1, d: { $date: '2024-03-09T12:00:00Z' } }],
    pipeline: [{ $project: {
      day: { $dateToString: { date: { $dateAdd: { startDate: '$d', unit: 'day', amount: 1, timezone: 'America/New_York' } }, format: '%Y-%m-%dT%H:%M:%SZ' } },
      hours: { $dateToString: { date: { $dateAdd: { startDate: '$d', unit: 'hour', amount: 24, timezone: 'America/New_York' } }, format: '%Y-%m-%dT%H:%M:%SZ' } },
      diffDays: { $dateDiff: { startDate: '$d', endDate: { $dateFromString: { dateString: '2024-03-10T11:00:00Z' } }, unit: 'day', timezone: 'America/New_York' } },
      diffHours: { $dateDiff: { startDate: '$d', endDate: { $dateFromString: { dateString: '2024-03-10T11:00:00Z' } }, unit: 'hour' } },
    } }],
    expect: [{ _id: 1, day: '2024-03-10T11:00:00Z', hours: '2024-03-10T12:00:00Z', diffDays: 1, diffHours: 23 }],
  },
  {
    name: '$sum widens int to long on overflow, and to double with a double; $avg is a double',
    // $sum manual "Behavior": "If all operands are integers and the result overflows, … long";
    // $avg manual: returns a double for integer input.
    docs: [{ _id: 1, v: 2147483647 }, { _id: 2, v: 1 }, { _id: 3, w: 1 }, { _id: 4, w: 0.5 }],
    pipeline: [{ $group: { _id: null, s: { $sum: '$v' }, sw: { $sum: '$w' }, a: { $avg: '$v' } } },
      { $project: { _id: 0, s: 1, ts: { $type: '$s' }, tsw: { $type: '$sw' }, ta: { $type: '$a' }, a: 1 } }],
    expect: [{ s: 2147483648, a: 1073741824, ts: 'long', tsw: 'double', ta: 'double' }],
  },
  {
    name: '$sortArray sorts documents by a field and mixed values in BSON order',
    // $sortArray manual "Sort on a Field" and "Sort on Mixed Types" (null < numbers < strings).
    docs: [{ _id: 1, team: [{ name: 'pat', age: 30 }, { name: 'dallas', age: 36 }, { name: 'charlie', age: 42 }],
      mixed: ['a', 20, null, 2.5, { x: 1 }, true] }],
    pipeline: [{ $project: { _id: 0, names: { $map: { input: { $sortArray: { input: '$team', sortBy: { age: -1 } } }, in: '$$this.name' } },
      mixed: { $sortArray: { input: '$mixed', sortBy: 1 } } } }],
    expect: [{ names: ['charlie', 'dallas', 'pat'], mixed: [null, 2.5, 20, 'a', { x: 1 }, true] }],
  },
  {
    name: '$setWindowFields: documents windows [-1, 1], [unbounded, -1] and the whole partition',
    // $setWindowFields manual "Window Operator" bounds: an empty window's $sum is 0 and its
    // $avg null ("Use a Documents Window …").
    docs: [{ _id: 1, p: 'x', v: 1 }, { _id: 2, p: 'x', v: 2 }, { _id: 3, p: 'x', v: 3 }, { _id: 4, p: 'y', v: 4 }],
    pipeline: [{ $setWindowFields: { partitionBy: '$p', sortBy: { _id: 1 }, output: {
      around: { $sum: '$v', window: { documents: [-1, 1] } },
      before: { $sum: '$v', window: { documents: ['unbounded', -1] } },
      beforeAvg: { $avg: '$v', window: { documents: ['unbounded', -1] } },
      all: { $sum: '$v' },
      rank: { $rank: {} } } } }, { $project: { p: 0 } }],
    expect: [{ _id: 1, v: 1, around: 3, before: 0, beforeAvg: null, all: 6, rank: 1 },
      { _id: 2, v: 2, around: 6, before: 1, beforeAvg: 1.0, all: 6, rank: 2 },
      { _id: 3, v: 3, around: 5, before: 3, beforeAvg: 1.5, all: 6, rank: 3 },
      { _id: 4, v: 4, around: 4, before: 0, beforeAvg: null, all: 4, rank: 1 }],
  },
  {
    name: '$bucket: [lower, upper) boundaries and a default bucket',
    // $bucket manual "Bucket by Year and Filter by Bucket Results".
    docs: [{ _id: 1, y: 1890 }, { _id: 2, y: 1900 }, { _id: 3, y: 1949 }, { _id: 4, y: 1950 }, { _id: 5, y: 'n/a' }],
    pipeline: [{ $bucket: { groupBy: '$y', boundaries: [1900, 1950, 2000], default: 'other', output: { n: { $sum: 1 } } } }],
    expect: [{ _id: 1900, n: 2 }, { _id: 1950, n: 1 }, { _id: 'other', n: 2 }],
  },
  {
    name: '$densify: "partition" bounds fill each partition from its own smallest value',
    // $densify manual "Densify Values within Each Partition" (the coffee collection).
    docs: [{ _id: 1, altitude: 600, variety: 'Arabica Typica', score: 68.3 }, { _id: 2, altitude: 750, variety: 'Arabica Typica', score: 69.5 },
      { _id: 3, altitude: 950, variety: 'Arabica Typica', score: 70.5 }, { _id: 4, altitude: 1250, variety: 'Gesha', score: 88.15 },
      { _id: 5, altitude: 1700, variety: 'Gesha', score: 95.5, price: 1029 }],
    pipeline: [{ $densify: { field: 'altitude', partitionByFields: ['variety'], range: { bounds: 'partition', step: 200 } } }],
    expect: [{ _id: 1, altitude: 600, variety: 'Arabica Typica', score: 68.3 }, { _id: 2, altitude: 750, variety: 'Arabica Typica', score: 69.5 },
      { variety: 'Arabica Typica', altitude: 800 }, { _id: 3, altitude: 950, variety: 'Arabica Typica', score: 70.5 },
      { _id: 4, altitude: 1250, variety: 'Gesha', score: 88.15 }, { variety: 'Gesha', altitude: 1450 }, { variety: 'Gesha', altitude: 1650 },
      { _id: 5, altitude: 1700, variety: 'Gesha', score: 95.5, price: 1029 }],
  },
  {
    name: '$densify: explicit bounds start at the lower bound whatever the documents, and run to the upper one',
    // $densify manual "range.bounds Behavior": the lower bound is the start value "irrespective of
    // documents already in the collection"; lower inclusive, upper exclusive; nothing is filtered out.
    docs: [{ _id: 1, x: 5 }, { _id: 2, x: -3 }],
    pipeline: [{ $densify: { field: 'x', range: { step: 4, bounds: [1, 14] } } }],
    expect: [{ _id: 2, x: -3 }, { x: 1 }, { _id: 1, x: 5 }, { x: 9 }, { x: 13 }],
  },
  {
    name: '$fill: linear interpolation spreads consecutive nulls evenly; locf carries the last value',
    // $fill manual "linear Behavior" (index 0…4) and "locf Behavior".
    docs: [{ _id: 0, value: 0 }, { _id: 1, value: null }, { _id: 2, value: null }, { _id: 3 }, { _id: 4, value: 10 }],
    pipeline: [{ $set: { last: '$value' } }, { $fill: { sortBy: { _id: 1 }, output: { value: { method: 'linear' }, last: { method: 'locf' } } } }],
    expect: [{ _id: 0, value: 0, last: 0 }, { _id: 1, value: 2.5, last: 0 }, { _id: 2, value: 5, last: 0 },
      { _id: 3, value: 7.5, last: 0 }, { _id: 4, value: 10, last: 10 }],
  },
];

let collectionNo = 0;

export async function runPipelineGolden(call) {
  const out = [];
  for (const c of CHECKS) {
    const coll = `pg${++collectionNo}`;
    let r = await call('insert_many', { collection: coll, documents: c.docs });
    if (!r.isError && c.foreign) {
      const [name, docs] = c.foreign;
      const fcoll = `${coll}_${name}`;
      r = await call('insert_many', { collection: fcoll, documents: docs });
      c.pipeline = JSON.parse(JSON.stringify(c.pipeline).replaceAll(`"from":"${name}"`, `"from":"${fcoll}"`));
    }
    if (r.isError) {
      out.push({ name: c.name, ok: false, expected: c.expect, got: r.text, note: 'insert failed' });
      continue;
    }
    r = await call('aggregate', { collection: coll, pipeline: c.pipeline });
    const got = r.isError ? r.text : parseNdjson(r.text);
    const ok = !r.isError && JSON.stringify(got) === JSON.stringify(c.expect);
    out.push({ name: c.name, ok, expected: c.expect, got, note: r.isError ? `error: ${r.text}` : undefined });
  }
  return out;
}
