// Shared by the console tests: a temporary setup, `omgdb serve` with the console on, the
// login link it prints, and an MCP client over Streamable HTTP (the agent).
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const TOKEN = "agent-token-" + "0123456789abcdef0123";

export async function startServer({ console: enabled = true } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omgdb-console-"));
  for (const d of ["run", "state", "data"]) fs.mkdirSync(path.join(dir, d), { mode: 0o700 });
  const db = path.join(dir, "data", "app.sqlite");
  // The rows carry a marker the console must never show.
  execFileSync("python3", ["-c",
    "import sqlite3,sys;c=sqlite3.connect(sys.argv[1]);c.execute('create table t(x int, secret text)');" +
    "c.execute(\"insert into t values (1,'row-marker-7731'),(2,'row-marker-7732')\");c.commit()", db]);
  const storeRoot = path.join(dir, "data", "stores");
  fs.mkdirSync(storeRoot);
  const config = path.join(dir, "omgdb.toml");
  fs.writeFileSync(config, [
    "[http]", 'listen = "127.0.0.1:0"', `state_dir = "${path.join(dir, "state")}"`,
    "[stores]", `roots = ["${storeRoot}"]`,
    "[console]", `enabled = ${enabled}`,
    "[[connections]]", 'name = "app"', 'label = "App database"', 'dialect = "sqlite"', `file = "${db}"`,
    'mcp_access = "read-write"', 'approve = "all"', "",
  ].join("\n"));
  const env = {
    ...process.env, XDG_RUNTIME_DIR: path.join(dir, "run"), XDG_STATE_HOME: path.join(dir, "state"),
    XDG_DATA_HOME: path.join(dir, "data"), OMGDB_HTTP_TOKEN: TOKEN, HOME: dir,
  };
  execFileSync(process.env.OMGDB_BIN, ["create", path.join(storeRoot, "notes")], { env, stdio: "ignore" });
  const child = spawn(process.env.OMGDB_BIN, ["serve", "--config", config], { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const links = [];
  const waiters = [];
  child.stderr.on("data", (chunk) => {
    stderr += chunk.toString();
    for (const m of stderr.matchAll(/console login link[^:]*: (http:\/\/\S+)/g)) {
      if (!links.includes(m[1])) links.push(m[1]);
    }
    while (waiters.length && links.length > waiters[0].seen) waiters.shift().resolve(links[links.length - 1]);
  });
  const nextLink = (seen) => new Promise((resolve, reject) => {
    if (links.length > seen) return resolve(links[links.length - 1]);
    waiters.push({ seen, resolve });
    setTimeout(() => reject(new Error("no login link printed; stderr:\n" + stderr)), 10000);
  });
  let link = null, base;
  if (enabled) {
    link = await nextLink(0);
    base = link.slice(0, link.indexOf("/console/"));
  } else {
    for (let i = 0; i < 100 && !/listening on (http:\/\/\S+)\/mcp/.test(stderr); i++) await new Promise((r) => setTimeout(r, 100));
    base = stderr.match(/listening on (http:\/\/\S+)\/mcp/)[1];
  }
  return {
    dir, base, link, storeRoot, env, links, nextLink,
    stderr: () => stderr,
    stop() { child.kill("SIGTERM"); },
  };
}

// A minimal MCP client over Streamable HTTP with the agent's bearer token.
export class Agent {
  constructor(base) { this.base = base; this.id = 0; this.session = null; }
  async post(message) {
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
                      Authorization: `Bearer ${TOKEN}` };
    if (this.session) headers["Mcp-Session-Id"] = this.session;
    if (this.version) headers["MCP-Protocol-Version"] = this.version;
    const r = await fetch(this.base + "/mcp", { method: "POST", headers, body: JSON.stringify(message) });
    if (r.headers.get("mcp-session-id")) this.session = r.headers.get("mcp-session-id");
    const text = await r.text();
    if (!text) return null;
    if ((r.headers.get("content-type") || "").includes("text/event-stream")) {
      const datas = text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)));
      return datas.find((d) => d.id === message.id) || null;
    }
    return JSON.parse(text);
  }
  async initialize() {
    const r = await this.post({ jsonrpc: "2.0", id: ++this.id, method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "agent", version: "1" } } });
    this.version = r.result.protocolVersion;
    await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  call(name, args) {
    return this.post({ jsonrpc: "2.0", id: ++this.id, method: "tools/call", params: { name, arguments: args } });
  }
}
