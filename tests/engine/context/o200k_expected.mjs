// Writes the exact o200k_base token counts of many texts, by npm gpt-tokenizer, one JSON line
// each: {"text": <base64 of the UTF-8 bytes>, "count": n}. The texts: every Markdown file of the
// repository's docs/ and up to 200 of /usr/share/doc, slices of them cut at random character
// boundaries, and hand-written edge cases (Unicode, numbers, whitespace runs, contractions).
// Usage: node o200k_expected.mjs SOURCE_DIR OUT_FILE
import fs from "node:fs";
import path from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
// Special tokens such as <|endoftext|> are counted as ordinary text, as omgdb counts them.
const asText = { disallowedSpecial: new Set() };

const [source, out] = process.argv.slice(2);
const files = [];
function walk(dir, limit) {
  let entries = [];
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    if (files.length >= limit) return;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, limit);
    else if (e.isFile() && e.name.endsWith(".md")) files.push(p);
  }
}
walk(path.join(source, "docs"), 1000);
walk("/usr/share/doc", files.length + 200);

let seed = 12345;
const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const texts = [
  "hello world", "Hello, world!", "", " ", "   leading and trailing   ", "\n\n\n", "a\r\nb\r\n",
  "I'm sure they'll say it's John's, we've seen you'd don't", "1234567890 3.14159 -42 1e10",
  "naïve café Über straße", "日本語のテキストです。", "emoji 🎉🚀 and ñ", "tabs\tand\u00a0nbsp",
  "CamelCaseWordsAndHTTPServer XMLHttpRequest", "special <|endoftext|> as text", "`code` **bold** [link](http://x.y/z?q=1)",
  "    indented\n\n\n    code", "x".repeat(3000), "ab".repeat(700) + " " + "!?".repeat(300),
  "Привет мир", "مرحبا بالعالم", "$$$%%%^^^&&&***", "path/to/file.md:12:3",
];
for (const f of files) {
  const t = fs.readFileSync(f, "utf8");
  if (t.includes("\ufffd")) continue;
  texts.push(t);
  const chars = Array.from(t);
  for (let k = 0; k < 3 && chars.length > 2; ++k) {
    const a = rand(chars.length), b = a + rand(Math.min(2000, chars.length - a));
    texts.push(chars.slice(a, b).join(""));
  }
}
const lines = texts.map((t) => JSON.stringify({ text: Buffer.from(t, "utf8").toString("base64"), count: countTokens(t, asText) }));
fs.writeFileSync(out, lines.join("\n") + "\n");
console.log(`o200k_expected: ${texts.length} texts from ${files.length} files -> ${out}`);
