// What the console tells a person, in Debian's chromium: a page that is still loading says
// so (never "nothing here"), a session has one name on every page (its label and its
// client's name), and a decided approval stays in the history as "approved/rejected in the
// console at T".
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { chromium } from "playwright-core";
import { startServer, Agent } from "./harness.mjs";

const shots = process.env.OMGDB_CONSOLE_SHOTS;
let server, browser, context, page, agent;

before(async () => {
  server = await startServer();
  browser = await chromium.launch({
    executablePath: process.env.OMGDB_CHROMIUM, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  await page.goto(server.link);
  await page.waitForSelector("#live.on", { timeout: 10000 });
  agent = new Agent(server.base);  // clientInfo.name "agent"
  await agent.initialize();
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.stop();
});

test("while the stores page loads it says loading, not that there is no store or connection", async () => {
  let release;
  const gate = new Promise((r) => { release = r; });
  const slow = await context.newPage();
  await slow.route("**/console/api/stores", async (route) => { await gate; await route.continue(); });
  await slow.goto(server.base + "/console/#stores");
  await slow.locator("#stores-loading").waitFor({ state: "visible", timeout: 5000 });
  assert.equal(await slow.textContent("#stores-loading"), "Loading stores…");
  assert.ok(await slow.locator("#connections-loading").isVisible());
  assert.ok(!(await slow.locator("#stores-empty").isVisible()), "no 'No store has been used yet' while loading");
  assert.ok(!(await slow.locator("#connections-empty").isVisible()), "no 'No SQL connection is configured' while loading");
  await slow.screenshot({ path: path.join(shots, "stores-loading.png"), fullPage: true });
  release();
  await slow.locator("#stores-loading").waitFor({ state: "hidden", timeout: 5000 });
  await slow.locator("#connections tbody tr", { hasText: "app" }).waitFor({ timeout: 5000 });
  assert.ok(!(await slow.locator("#connections-empty").isVisible()));
  assert.ok(await slow.locator("#stores-empty").isVisible(), "once loaded, no store has been used is true");
  await slow.close();
});

test("a page whose data cannot be loaded says so instead of claiming it is empty", async () => {
  const broken = await context.newPage();
  await broken.route("**/console/api/sessions", (route) =>
    route.fulfill({ status: 500, contentType: "application/json", body: '{"error":"the daemon is restarting"}' }));
  await broken.goto(server.base + "/console/#sessions");
  await broken.locator("#sessions-loading", { hasText: "Could not load" }).waitFor({ timeout: 5000 });
  assert.match(await broken.textContent("#sessions-loading"), /the daemon is restarting/);
  assert.ok(!(await broken.locator("#sessions-empty").isVisible()));
  await broken.close();
});

test("the approval card, the Sessions page and the History page name the requesting session alike", async () => {
  await page.getByRole("tab", { name: "Sessions" }).click();
  const row = page.locator("#sessions tbody tr").first();
  await row.waitFor({ timeout: 5000 });
  const name = (await row.locator("td").first().textContent()).trim();
  assert.match(name, /^[0-9a-f]{8} · agent$/, "the label and the client's name");

  await page.getByRole("tab", { name: "Approvals" }).click();
  const call = agent.call("executeSql", { connection: "app", sql: "SELECT x FROM t WHERE x = 1" });
  const card = page.locator("article.card", { hasText: "SELECT x FROM t WHERE x = 1" });
  await card.waitFor({ timeout: 10000 });
  assert.match(await card.locator("dd.who").textContent(), new RegExp("^session " + name + " \\(request \\d+\\)$"));
  await page.screenshot({ path: path.join(shots, "approvals-named.png"), fullPage: true });
  await card.getByRole("button", { name: "Approve" }).click();
  assert.equal((await call).result.isError, false);

  await page.getByRole("tab", { name: "History" }).click();
  const calls = page.locator("#history tbody tr:not(.decision)", { hasText: "executeSql" }).first();
  await calls.waitFor({ timeout: 5000 });
  assert.equal((await calls.locator("td").nth(1).textContent()).trim(), name);
});

test("decided approvals stay in the history: approved or rejected in the console at a time", async () => {
  await page.getByRole("tab", { name: "Approvals" }).click();
  const call = agent.call("executeSql", { connection: "app", sql: "DELETE FROM t WHERE x = 1" });
  const card = page.locator("article.card", { hasText: "DELETE FROM t WHERE x = 1" });
  await card.waitFor({ timeout: 10000 });
  await card.getByRole("button", { name: "Reject" }).click();
  assert.equal((await call).result.isError, true);

  await page.getByRole("tab", { name: "History" }).click();
  const rejected = page.locator("#history tbody tr.decision", { hasText: "rejected" }).first();
  await rejected.waitFor({ timeout: 5000 });
  const cells = await rejected.locator("td").allTextContents();
  assert.match(cells[1], /^[0-9a-f]{8} · agent$/);
  assert.equal(cells[2], "executeSql");
  assert.equal(cells[3], "app");
  assert.equal(cells[5], "rejected");
  assert.match(cells[6], /^rejected in the console at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(request \d+\)$/);
  const approved = page.locator("#history tbody tr.decision", { hasText: "approved in the console at" });
  assert.equal(await approved.count(), 1, "the earlier approval is kept too");
  assert.ok(!(await page.textContent("body")).includes("row-marker"), "still no returned row");
  await page.screenshot({ path: path.join(shots, "history-decisions.png"), fullPage: true });
});
