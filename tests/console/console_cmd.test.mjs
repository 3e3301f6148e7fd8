// `omgdb console` for a stdio-only setup: it reaches a running `omgdb mcp` (stdio) through its
// admin socket, shows the pending approval and decides it with the same rules.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";

test("omgdb console shows a stdio server's approval, approves it, and serves nothing but /console", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omgdb-console-cmd-"));
  for (const d of ["run", "state", "data"]) fs.mkdirSync(path.join(dir, d), { mode: 0o700 });
  const db = path.join(dir, "data", "app.sqlite");
  execFileSync("python3", ["-c", "import sqlite3,sys;c=sqlite3.connect(sys.argv[1]);c.execute('create table t(x text)');" +
    "c.execute(\"insert into t values ('row-marker-9931')\");c.commit()", db]);
  const config = path.join(dir, "omgdb.toml");
  fs.writeFileSync(config, ['[[connections]]', 'name = "app"', 'dialect = "sqlite"', `file = "${db}"`,
    'mcp_access = "read-write"', ""].join("\n"));
  const env = { ...process.env, XDG_RUNTIME_DIR: path.join(dir, "run"), XDG_STATE_HOME: path.join(dir, "state"),
                XDG_DATA_HOME: path.join(dir, "data"), HOME: dir };
  const mcp = spawn(process.env.OMGDB_BIN, ["mcp", "--config", config], { env, stdio: ["pipe", "pipe", "ignore"] });
  const replies = new Map();
  readline.createInterface({ input: mcp.stdout }).on("line", (l) => {
    const m = JSON.parse(l);
    if (m.id !== undefined && replies.has(m.id)) replies.get(m.id)(m);
  });
  const send = (m) => new Promise((resolve) => { replies.set(m.id, resolve); mcp.stdin.write(JSON.stringify(m) + "\n"); });
  await send({ jsonrpc: "2.0", id: 1, method: "initialize",
               params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "agent", version: "1" } } });
  mcp.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  const answer = send({ jsonrpc: "2.0", id: 2, method: "tools/call",
                        params: { name: "executeSql", arguments: { connection: "app", sql: "SELECT x FROM t" } } });

  const cons = spawn(process.env.OMGDB_BIN, ["console", "--config", config, "--listen", "127.0.0.1:0"],
                     { env, stdio: ["ignore", "pipe", "ignore"] });
  try {
    const link = await new Promise((resolve, reject) => {
      let out = "";
      cons.stdout.on("data", (d) => {
        out += d;
        const m = out.match(/(http:\/\/127\.0\.0\.1:\d+\/console\/login\?key=[0-9a-f]{64})/);
        if (m) resolve(m[1]);
      });
      setTimeout(() => reject(new Error("no link on stdout: " + out)), 10000);
    });
    const base = link.slice(0, link.indexOf("/console/"));
    assert.equal((await fetch(base + "/mcp", { method: "POST", body: "{}" })).status, 404);
    const login = await fetch(link, { redirect: "manual" });
    assert.equal(login.status, 303);
    const cookie = login.headers.get("set-cookie").split(";")[0];
    const csrf = (await (await fetch(base + "/console/api/me", { headers: { Cookie: cookie } })).json()).csrf;
    let pending = [];
    for (let i = 0; i < 50 && !pending.length; i++) {
      pending = (await (await fetch(base + "/console/api/approvals", { headers: { Cookie: cookie } })).json()).pending;
      if (!pending.length) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(pending.length, 1);
    assert.equal(pending[0].sql, "SELECT x FROM t");
    assert.equal(pending[0].server, String(mcp.pid));
    const ok = await fetch(base + `/console/api/approvals/${pending[0].id}/approve`,
      { method: "POST", headers: { Cookie: cookie, Origin: base, "X-Omgdb-Csrf": csrf } });
    assert.equal(ok.status, 200, await ok.text());
    const r = await answer;
    assert.equal(r.result.isError, false, JSON.stringify(r));
    assert.match(r.result.content[0].text, /row-marker-9931/);
    let calls = [];
    for (let i = 0; i < 20 && !calls.length; i++) {
      calls = (await (await fetch(base + "/console/api/history", { headers: { Cookie: cookie } })).json()).calls;
      if (!calls.length) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(calls[0].tool, "executeSql");
    assert.ok(!JSON.stringify(calls).includes("row-marker"), "no row in the history");
  } finally {
    cons.kill("SIGTERM");
    mcp.stdin.end();
  }
});
