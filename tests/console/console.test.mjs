// End to end: an agent's executeSql waits for a person; the person approves or rejects it
// in the console, in a real browser (Debian's chromium, headless, through playwright-core).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { chromium } from "playwright-core";
import { startServer, Agent } from "./harness.mjs";

const shots = process.env.OMGDB_CONSOLE_SHOTS;
let server, browser, page, agent;

before(async () => {
  server = await startServer();
  browser = await chromium.launch({
    executablePath: process.env.OMGDB_CHROMIUM, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  if (process.env.OMGDB_CONSOLE_DEBUG) page.on("request", (r) => console.error("REQ", new Date().toISOString(), r.method(), r.url()));
  if (process.env.OMGDB_CONSOLE_DEBUG) page.on("response", (r) => { if (r.request().method() === "POST") r.text().then((t) => console.error("POST", r.url(), r.status(), t)); });
  await page.goto(server.link);  // the one-time link: sets the cookie, redirects to /console/
  await page.waitForSelector("#live.on", { timeout: 10000 });
  agent = new Agent(server.base);
  await agent.initialize();
  const stored = await agent.call("insert", { path: path.join(server.storeRoot, "notes"), collection: "todo",
                                              document: { title: "doc-marker-5521" } });
  assert.equal(stored.result.isError, false, JSON.stringify(stored));
  const indexed = await agent.call("create_index", { path: path.join(server.storeRoot, "notes"), collection: "todo",
                                                     field: "title" });
  assert.equal(indexed.result.isError, false, JSON.stringify(indexed));
  const searchable = await agent.call("define_search_index", { path: path.join(server.storeRoot, "notes"),
                                                               definition: { collection: "todo", name: "titles",
                                                                             fields: ["title"] } });
  assert.equal(searchable.result.isError, false, JSON.stringify(searchable));
});

after(async () => {
  if (browser) await browser.close();
  if (server && process.env.OMGDB_CONSOLE_DEBUG) console.error(server.stderr());
  if (server) server.stop();
});

test("the login link opens the console and the address bar keeps no key", async () => {
  assert.match(page.url(), /\/console\/(#approvals)?$/);
  assert.equal(await page.textContent("h1"), "omgdb console");
});

test("an approved executeSql reaches the agent with its rows, and the history shows the call without them", async () => {
  const call = agent.call("executeSql", { connection: "app", sql: "SELECT x, secret FROM t ORDER BY x" });
  const card = page.locator("article.card", { hasText: "SELECT x, secret FROM t" });
  await card.waitFor({ timeout: 10000 });
  const text = await card.textContent();
  assert.match(text, /app \(App database\)/);
  assert.match(text, /Time left/);
  assert.match(text, /session [0-9a-f]{8} · agent \(request \d+\)/);
  assert.ok(await card.locator("pre.sql span.kw", { hasText: "SELECT" }).count() > 0, "the statement is highlighted");
  await page.screenshot({ path: path.join(shots, "approvals.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 800 });
  await page.screenshot({ path: path.join(shots, "approvals-narrow.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await card.getByRole("button", { name: "Approve" }).click();
  const answer = await call;
  assert.equal(answer.result.isError, false, JSON.stringify(answer));
  assert.match(answer.result.content[0].text, /row-marker-7731/);
  await page.locator("article.card").first().waitFor({ state: "detached", timeout: 5000 }).catch(() => {});
  assert.equal(await page.locator("article.card", { hasText: "SELECT x, secret" }).count(), 0);

  await page.getByRole("tab", { name: "History" }).click();
  const row = page.locator("#history tbody tr:not(.decision)", { hasText: "executeSql" }).first();
  await row.waitFor({ timeout: 5000 });
  assert.match(await row.textContent(), /ok/);
  assert.match(await row.textContent(), /app/);
  const body = await page.textContent("body");
  assert.ok(!body.includes("row-marker"), "no returned row is shown");
  assert.ok(!body.includes("doc-marker"), "no document content is shown");
  await page.screenshot({ path: path.join(shots, "history.png"), fullPage: true });
});

test("a rejected executeSql runs nothing and the agent is told, with the keyboard alone", async () => {
  await page.getByRole("tab", { name: "History" }).focus();
  await page.keyboard.press("Home");  // the tab list: Home goes to Approvals
  assert.equal(await page.getAttribute("#tab-approvals", "aria-selected"), "true");
  const call = agent.call("executeSql", { connection: "app", sql: "DELETE FROM t WHERE x = 2" });
  const card = page.locator("article.card", { hasText: "DELETE FROM t" });
  await card.waitFor({ timeout: 10000 });
  assert.match(await card.textContent(), /writes \(DELETE\)/);
  let focused = "";
  for (let i = 0; i < 20 && focused !== "Reject"; i++) {
    await page.keyboard.press("Tab");
    focused = await page.evaluate(() => document.activeElement && document.activeElement.textContent);
  }
  assert.equal(focused, "Reject", "Tab reaches the Reject button");
  await page.keyboard.press("Enter");
  await card.waitFor({ state: "detached", timeout: 5000 });
  const answer = await call;
  assert.equal(answer.result.isError, true);
  assert.match(answer.result.content[0].text, /reject/i);
  const check = agent.call("executeSql", { connection: "app", sql: "SELECT count(*) AS n FROM t" });
  const card2 = page.locator("article.card", { hasText: "SELECT count(*)" });
  await card2.waitFor({ timeout: 10000 });
  await card2.getByRole("button", { name: "Approve" }).click({ timeout: 5000 });
  await card2.waitFor({ state: "detached", timeout: 5000 }).catch(async () => {
    throw new Error("approve did not go through: " + (await page.textContent("#message")));
  });
  const counted = await check;
  assert.equal(counted.result.isError, false, JSON.stringify(counted));
  assert.match(counted.result.content[0].text, /"rows":\s*\[\s*\[\s*2\s*\]/, "the DELETE did not run: " + counted.result.content[0].text);

  await page.getByRole("tab", { name: "History" }).click();
  const row = page.locator("#history tbody tr:not(.decision)", { hasText: "executeSql" }).nth(1);  // newest first: the count, then the DELETE
  await row.waitFor({ timeout: 5000 });
  assert.match(await row.textContent(), /error/);
  assert.match(await row.textContent(), /reject/i);
});

test("a proposed worksheet edit shows its rationale and a before/after diff, and approving applies it", async () => {
  await page.getByRole("tab", { name: "Approvals" }).click();
  const first = agent.call("proposeSqlEdit", { connection: "app", sql: "SELECT x\nFROM t", rationale: "start a worksheet" });
  const card1 = page.locator("article.card", { hasText: "start a worksheet" });
  await card1.waitFor({ timeout: 10000 });
  await card1.getByRole("button", { name: "Approve" }).click();
  assert.equal((await first).result.isError, false);
  const second = agent.call("proposeSqlEdit", { connection: "app", sql: "SELECT x, secret\nFROM t\nWHERE x > 1",
                                                rationale: "narrow it to the later rows" });
  const card = page.locator("article.card", { hasText: "narrow it to the later rows" });
  await card.waitFor({ timeout: 10000 });
  assert.match(await card.textContent(), /proposeSqlEdit/);
  assert.deepEqual(await card.locator("pre.diff .del").allTextContents(), ["- SELECT x"]);
  assert.deepEqual(await card.locator("pre.diff .add").allTextContents(), ["+ SELECT x, secret", "+ WHERE x > 1"]);
  assert.deepEqual(await card.locator("pre.diff span").allTextContents(),
                   ["- SELECT x", "+ SELECT x, secret", "  FROM t", "+ WHERE x > 1"], "removals before additions");
  await page.screenshot({ path: path.join(shots, "approvals-proposal.png"), fullPage: true });
  await card.getByRole("button", { name: "Approve" }).click();
  const answer = await second;
  assert.equal(answer.result.isError, false, JSON.stringify(answer));
  assert.match(answer.result.content[0].text, /"approved":\s*true/);
});

test("the sessions page lists the agent's session and the stores page its store, counts, indexes and search indexes", async () => {
  await page.getByRole("tab", { name: "Sessions" }).click();
  const row = page.locator("#sessions tbody tr").first();
  await row.waitFor({ timeout: 5000 });
  const text = await row.textContent();
  assert.match(text, /\$OMGDB_HTTP_TOKEN/);
  assert.match(text, /read-write/);
  assert.match(text, /2025-06-18/);
  assert.match(text, /proposeSqlEdit · ok/);  // the last call
  await page.screenshot({ path: path.join(shots, "sessions.png"), fullPage: true });

  await page.getByRole("tab", { name: "Stores and connections" }).click();
  const store = page.locator("#stores article.card", { hasText: "notes" });
  await store.waitFor({ timeout: 5000 });
  const s = await store.textContent();
  assert.match(s, /todo/);
  assert.match(s, /title_1/);
  assert.match(s, /titles \(lag \d+\)/, "the search index and its generation's lag");
  const conn = page.locator("#connections tbody tr", { hasText: "app" });
  await conn.waitFor();
  assert.match(await conn.textContent(), /read-write/);
  assert.ok(!(await page.textContent("body")).includes("app.sqlite"), "the connection's file is not shown");
  await page.waitForFunction(() => !document.body.textContent.includes("checking…"), null, { timeout: 5000 })
    .catch(async () => { await page.getByRole("tab", { name: "History" }).click();
                         await page.getByRole("tab", { name: "Stores and connections" }).click(); });
  await page.screenshot({ path: path.join(shots, "stores.png"), fullPage: true });
});

test("ending a session from the console makes the agent's next call fail with session not found", async () => {
  await page.getByRole("tab", { name: "Sessions" }).click();
  await page.locator("#sessions tbody tr").first().getByRole("button", { name: /End session/ }).click();
  await page.locator("#sessions-empty").waitFor({ state: "visible", timeout: 5000 });
  const r = await fetch(server.base + "/mcp", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
               Authorization: "Bearer " + "agent-token-0123456789abcdef0123", "Mcp-Session-Id": agent.session,
               "MCP-Protocol-Version": agent.version },
    body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "tools/list" }),
  });
  assert.equal(r.status, 404);
});
