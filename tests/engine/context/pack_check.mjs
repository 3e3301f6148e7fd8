// Drives `omgdb mcp` over stdio: imports Markdown (this repository's docs/ and /usr/share/doc),
// then asks for context packs with random queries and budgets and checks each one:
//   - the counter is o200k and its total equals npm gpt-tokenizer's count of the pack text,
//   - the total never exceeds the budget,
//   - every citation's byte range, read from the stored document, is quoted in the pack after
//     its [n] marker, byte for byte, and the same call gives the same pack.
// Also: a Markdown store without o200k (no rank file) says `estimate` and still fits.
// Usage: node pack_check.mjs OMGDB SOURCE_DIR WORK_DIR
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
// Special tokens such as <|endoftext|> are counted as ordinary text, as omgdb counts them.
const asText = { disallowedSpecial: new Set() };

const [omgdb, source, work] = process.argv.slice(2);
const store = path.join(work, "store");
execFileSync(omgdb, ["create", store], { stdio: "ignore" });
execFileSync(omgdb, ["import-markdown", "--quiet", store, "md", path.join(source, "docs"), "/usr/share/doc"], {
  stdio: ["ignore", "inherit", "ignore"],
});

function server(env) {
  const child = spawn(omgdb, ["mcp", "--max-result-bytes", "67108864"], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map();
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    const msg = JSON.parse(line);
    if (msg.id !== undefined && waiting.has(msg.id)) {
      waiting.get(msg.id)(msg);
      waiting.delete(msg.id);
    }
  });
  let next = 1;
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  return {
    async start() {
      await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pack_check", version: "1" } });
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    },
    async call(name, args) {
      const r = await request("tools/call", { name, arguments: args });
      if (r.error || r.result.isError) throw new Error(`${name}: ${JSON.stringify(r.error || r.result.content)}`);
      return r.result.content.map((c) => c.text);
    },
    stop() {
      const exited = new Promise((resolve) => child.on("exit", resolve));
      child.stdin.end();
      return exited;
    },
  };
}

let failures = 0;
const fail = (what) => { failures++; console.error("pack_check: FAIL " + what); };

const words = fs.readFileSync(path.join(source, "docs", "architecture.md"), "utf8").toLowerCase().match(/[a-z]{5,}/g);
let seed = 99;
const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };

async function check(env, counter, rounds) {
  const s = server(env);
  await s.start();
  const texts = new Map();
  for (let i = 0; i < rounds; ++i) {
    const query = Array.from({ length: 1 + rand(4) }, () => words[rand(words.length)]).join(" ");
    const budget = [1000, 1 + rand(3000), 20 + rand(200)][i % 3];
    const [text, metaText] = await s.call("context_pack", { path: store, collection: "md", field: "text", query, budget });
    const meta = JSON.parse(metaText);
    const exact = countTokens(text, asText);
    if (meta.tokens.counter !== counter) fail(`counter ${meta.tokens.counter}, expected ${counter}`);
    if (exact > budget) fail(`"${query}" budget ${budget}: gpt-tokenizer counts ${exact}`);
    if (counter === "o200k" && exact !== meta.tokens.total) fail(`"${query}": total ${meta.tokens.total}, gpt-tokenizer ${exact}`);
    if (counter === "estimate" && meta.tokens.total < exact) fail(`"${query}": estimate ${meta.tokens.total} under ${exact}`);
    const bytes = Buffer.from(text, "utf8");
    let at = 0;
    for (const c of meta.citations) {
      if (!texts.has(c._id)) {
        const [doc] = await s.call("get", { path: store, collection: "md", id: c._id });
        texts.set(c._id, Buffer.from(JSON.parse(doc).text, "utf8"));
      }
      const quote = texts.get(c._id).subarray(c.byteStart, c.byteEnd);
      const marker = bytes.indexOf(Buffer.from(`[${c.n}] `), at);
      const start = bytes.indexOf(10, marker) + 1;
      if (marker < 0 || !bytes.subarray(start, start + quote.length).equals(quote)) {
        fail(`"${query}": citation ${c.n} (${c._id} ${c.byteStart}-${c.byteEnd}) is not quoted byte for byte`);
      }
      at = start + quote.length;
    }
    const [again] = await s.call("context_pack", { path: store, collection: "md", field: "text", query, budget });
    if (again !== text) fail(`"${query}": a second call gave another pack`);
  }
  await s.stop();
  console.log(`pack_check: ${rounds} packs with the ${counter} counter checked`);
}

await check({ OMGDB_O200K_FILE: process.env.OMGDB_O200K_FILE }, "o200k", 150);
await check({ OMGDB_O200K_FILE: "" }, "estimate", 30);
if (failures) {
  console.error(`pack_check: ${failures} failures`);
  process.exit(1);
}
console.log("pack_check: ok");
