// The console's access rules over plain HTTP: no cookie, a forged Origin or Host, a replayed
// login link, a POST without its CSRF token, or an agent's bearer token: refused, and a
// pending approval stays pending through all of it (fail closed).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, Agent, TOKEN } from "./harness.mjs";

let server, cookie, csrf, origin;
const routes = ["/console", "/console/", "/console/app.js", "/console/app.css", "/console/api/me",
  "/console/api/approvals", "/console/api/sessions", "/console/api/history", "/console/api/stores",
  "/console/api/events"];
const posts = ["/console/api/approvals/0123456789ab/approve", "/console/api/approvals/0123456789ab/reject",
  "/console/api/sessions/01234567/end", "/console/api/logout"];

function get(p, headers = {}) { return fetch(server.base + p, { headers, redirect: "manual" }); }
function post(p, headers = {}) { return fetch(server.base + p, { method: "POST", headers, redirect: "manual" }); }

before(async () => {
  server = await startServer();
  origin = server.base;
  const r = await get(server.link.slice(server.base.length));
  assert.equal(r.status, 303);
  cookie = r.headers.get("set-cookie").split(";")[0];
  assert.match(r.headers.get("set-cookie"), /HttpOnly/);
  assert.match(r.headers.get("set-cookie"), /SameSite=Strict/);
  csrf = (await (await get("/console/api/me", { Cookie: cookie })).json()).csrf;
  assert.match(csrf, /^[0-9a-f]{64}$/);
});

after(() => server && server.stop());

test("without the cookie every console route is refused", async () => {
  for (const p of routes) assert.equal((await get(p)).status, 401, p);
  for (const p of posts) assert.equal((await post(p, { Origin: origin })).status, 401, p);
  const page = await (await get("/console/")).text();
  assert.ok(!page.includes("key="), "the sign-in page carries no login link");
});

test("a made-up or malformed cookie opens nothing", async () => {
  for (const c of ["omgdb_console=" + "a".repeat(64), "omgdb_console=xyz", "other=1"]) {
    assert.equal((await get("/console/api/approvals", { Cookie: c })).status, 401, c);
  }
});

test("a replayed login link is refused, and so is a made-up one", async () => {
  const again = await get(server.link.slice(server.base.length));
  assert.equal(again.status, 403);
  assert.equal(again.headers.get("set-cookie"), null);
  assert.equal((await get("/console/login?key=" + "0".repeat(64))).status, 403);
  assert.equal((await get("/console/login")).status, 403);
});

test("a forged Origin or Host is refused even with the cookie", async () => {
  assert.equal((await get("/console/api/approvals", { Cookie: cookie, Origin: "http://evil.example" })).status, 403);
  assert.equal((await post("/console/api/logout", { Cookie: cookie, Origin: "http://evil.example", "X-Omgdb-Csrf": csrf })).status, 403);
  assert.equal((await get("/console/api/approvals", { Cookie: cookie, Origin: "null" })).status, 403);
  // fetch cannot forge Host; a raw request can.
  const net = await import("node:net");
  const port = Number(new URL(server.base).port);
  const reply = await new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1", () => s.end(`GET /console/api/approvals HTTP/1.1\r\nHost: evil.example:${port}\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`));
    let data = ""; s.on("data", (d) => (data += d)); s.on("end", () => resolve(data));
  });
  assert.match(reply, /^HTTP\/1\.1 403/);
});

test("a POST without its CSRF token, with a wrong one, or without Origin is refused and decides nothing", async () => {
  const agent = new Agent(server.base);
  await agent.initialize();
  const call = agent.call("executeSql", { connection: "app", sql: "SELECT 1" });
  let pending = [];
  for (let i = 0; i < 50 && !pending.length; i++) {
    pending = (await (await get("/console/api/approvals", { Cookie: cookie })).json()).pending;
    if (!pending.length) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(pending.length, 1);
  const id = pending[0].id;
  const approve = `/console/api/approvals/${id}/approve`;
  assert.equal((await post(approve, { Cookie: cookie, Origin: origin })).status, 403);
  assert.equal((await post(approve, { Cookie: cookie, Origin: origin, "X-Omgdb-Csrf": "0".repeat(64) })).status, 403);
  assert.equal((await post(approve, { Cookie: cookie, "X-Omgdb-Csrf": csrf })).status, 403);
  assert.equal((await post(approve, { Authorization: `Bearer ${TOKEN}`, Origin: origin })).status, 401);
  const still = (await (await get("/console/api/approvals", { Cookie: cookie })).json()).pending;
  assert.deepEqual(still.map((a) => a.id), [id], "still pending after every refused attempt");
  const ok = await post(`/console/api/approvals/${id}/reject`, { Cookie: cookie, Origin: origin, "X-Omgdb-Csrf": csrf });
  assert.equal(ok.status, 200);
  const twice = await post(`/console/api/approvals/${id}/approve`, { Cookie: cookie, Origin: origin, "X-Omgdb-Csrf": csrf });
  assert.equal(twice.status, 409, "a decision counts once");
  const answer = await call;
  assert.equal(answer.result.isError, true);
});

test("an agent's bearer token opens nothing, with or without the cookie", async () => {
  for (const p of routes) {
    assert.equal((await get(p, { Authorization: `Bearer ${TOKEN}` })).status, 401, p);
    assert.equal((await get(p, { Authorization: `Bearer ${TOKEN}`, Cookie: cookie })).status, 401, p);
  }
});

test("a console request with a body is refused", async () => {
  const r = await fetch(server.base + "/console/api/logout", { method: "POST", body: "x",
    headers: { Cookie: cookie, Origin: origin, "X-Omgdb-Csrf": csrf } });
  assert.equal(r.status, 400);
});

test("visiting /console without a session prints a fresh link to the daemon's log, never in the reply", async () => {
  // Use up the outstanding link first: a fresh one is minted only when none is (at most one per 10 s).
  assert.equal((await get(server.links[server.links.length - 1].slice(server.base.length))).status, 303);
  const seen = server.links.length;
  let body = "";
  for (let i = 0; i < 24 && server.links.length === seen; i++) {
    body += await (await get("/console/")).text();
    await new Promise((r) => setTimeout(r, 500));
  }
  const link = await server.nextLink(seen);
  assert.ok(!body.includes(link.split("key=")[1]), "the link is never in the reply");
  assert.equal((await get(link.slice(server.base.length))).status, 303);
});

test("signing out ends the console session", async () => {
  const r = await post("/console/api/logout", { Cookie: cookie, Origin: origin, "X-Omgdb-Csrf": csrf });
  assert.equal(r.status, 200);
  assert.equal((await get("/console/api/approvals", { Cookie: cookie })).status, 401);
});

test("with the console off (the default) /console is not served at all", async () => {
  const off = await startServer({ console: false });
  try {
    for (const p of ["/console/", "/console/login?key=" + "0".repeat(64), "/console/api/approvals"]) {
      assert.equal((await fetch(off.base + p, { redirect: "manual" })).status, 404, p);
    }
    assert.ok(!off.stderr().includes("login link"));
  } finally {
    off.stop();
  }
});
