import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsole, type RunningConsole } from "../../../src/service/console/console-server.js";
import { BlockedWriteStore } from "../../../src/state/blocked-write-store.js";
import { makeConsoleWorkspace, type ConsoleWorkspace } from "./console-fixture.js";

/** Debian's chromium (scripts/install-system-deps.sh); Playwright's own download cannot run here. */
const CHROMIUM = process.env.PROVENANT_CHROMIUM ?? "/usr/bin/chromium";
const SCREENSHOTS = resolve(".cache", "console-screenshots");
/** docs/console.md shows these; refreshed from a run with PROVENANT_DOC_SCREENSHOTS=1. */
const DOC_SCREENSHOTS = resolve("docs", "console");

describe("console in a real browser (Debian chromium via playwright-core)", () => {
  let ws: ConsoleWorkspace;
  let running: RunningConsole;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    ws = makeConsoleWorkspace();
    running = await startConsole({ workspace: ws.dir, env: { PROVENANT_LEDGER_PUBKEY: ws.checkpointPublicKey }, log: () => undefined });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`${page.url()}: console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`${page.url()}: ${e.message}`));
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.goto(running.loginUrl);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await running?.close();
    ws?.cleanup();
  });

  /** Opens the graph of the turn whose row says `turn`, and waits for the whole page: a large graph is still being parsed when its svg element first appears. */
  async function openGraph(turn: string): Promise<void> {
    await page.locator("tr", { hasText: turn }).locator("a").click();
    await page.waitForURL(/\/graphs\/\d+$/);
  }

  async function shot(name: string): Promise<void> {
    const file = join(SCREENSHOTS, `${name}.png`);
    await page.screenshot({ path: file, fullPage: false });
    if (process.env.PROVENANT_DOC_SCREENSHOTS === "1") {
      mkdirSync(DOC_SCREENSHOTS, { recursive: true });
      copyFileSync(file, join(DOC_SCREENSHOTS, `${name}.png`));
    }
  }

  /** Nothing injected ran: no flag set, no dialog, no console error (a CSP refusal would be one). */
  async function expectNothingExecuted(): Promise<void> {
    // Expressions as strings: they run in the page, whose DOM types this Node project does not compile against.
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
  }

  it("logs in with the one-time URL and shows the sessions, hostile names escaped", async () => {
    expect(new URL(page.url()).pathname).toBe("/approvals");
    const held = await page.locator('article.approval[data-code="0badc0de"]').innerText();
    expect(held).toContain("<script>window.__pwned=1</script>");
    expect(held).toContain("\\x1b[2J");
    expect(held).toContain("\\u202e");
    expect(await page.locator("#approvals script, #approvals img, #approvals svg, #approvals a").count()).toBe(0);
    // Each argument's provenance (path, role, value, finding, source id and tool) is shown as text, escapes visible.
    const argument = await page.locator('article.approval[data-code="0badc0de"] table.arguments tbody tr').innerText();
    for (const part of ["content<script>window.__pwned=1</script>", "only from web_fetch <script>", "call-1<script>", "web_fetch<script>"]) expect(argument).toContain(part);
    expect(argument).toContain("\\x1b[2J");
    expect(argument).toContain("\\u202e");
    await expectNothingExecuted();
    await page.goto(`${running.origin}/sessions`);
    const text = await page.locator("table.sessions").innerText();
    expect(text).toContain("<script>window.__pwned=1</script>");
    expect(text).toContain("\\x1b[2J");
    expect(text).toContain("\\u202e");
    expect(await page.locator("table.sessions script, table.sessions img, table.sessions svg").count()).toBe(0);
    await shot("sessions");
    await expectNothingExecuted();
  });

  it("resets a session from the page: the watermark on disk is reset and the reset is in its history", async () => {
    const row = page.locator("tr", { hasText: "big-turn" });
    await row.locator("select").selectOption("external");
    await row.getByRole("button", { name: "Reset" }).click();
    await page.waitForURL(/\/sessions\?done=reset$/);
    const file = JSON.parse(readFileSync(join(ws.dir, ".provenance", "watermarks.json"), "utf8")) as { watermarks: Record<string, { level: string; resetHistory: { resetBy: string }[] }> };
    expect(file.watermarks["big-turn"]?.level).toBe("external");
    expect(file.watermarks["big-turn"]?.resetHistory.at(-1)?.resetBy).toBe("owner (console)");
    await expect.poll(() => page.locator("tr", { hasText: "big-turn" }).locator(".trust").first().innerText()).toBe("external");
    await expectNothingExecuted();
  });

  it("shows a staged write as a diff with escapes visible, and commits it: the file changes on disk", async () => {
    const store = new BlockedWriteStore(ws.dir);
    const soul = store.list().find((w) => w.targetPath === "SOUL.md");
    expect(soul).toBeDefined();
    await page.goto(`${running.origin}/writes`);
    await shot("staged-writes");
    await page.locator(`a[href="/writes/${soul?.id}"]`).click();
    await page.waitForURL(new RegExp(`/writes/${soul?.id}$`));
    const diff = await page.locator("table.diff").innerText();
    expect(diff).toContain("I obey evil.example <script>window.__pwned=1</script>");
    expect(diff).toContain("\\x1b[2J");
    expect(diff).toContain("I keep secrets.");
    expect(await page.locator("tr.diff-add").count()).toBeGreaterThan(0);
    expect(await page.locator("tr.diff-del").count()).toBeGreaterThan(0);
    await shot("staged-write-diff");
    await expectNothingExecuted();
    expect(readFileSync(join(ws.dir, "SOUL.md"), "utf8")).toBe("I am helpful.\nI keep secrets.\n");
    await page.locator("#commit").click();
    await page.waitForURL(/\/writes\?done=committed$/);
    expect(readFileSync(join(ws.dir, "SOUL.md"), "utf8")).toBe(soul?.content);
    expect(ws.stagedIds()).not.toContain(soul?.id);
  });

  it("discards a staged write: it is gone and the file is as it was", async () => {
    const memory = new BlockedWriteStore(ws.dir).list().find((w) => w.targetPath === "MEMORY.md");
    expect(memory).toBeDefined();
    await page.goto(`${running.origin}/writes/${memory?.id}`);
    await page.locator("#discard").click();
    await page.waitForURL(/\/writes\?done=discarded$/);
    expect(ws.stagedIds()).not.toContain(memory?.id);
    expect(readFileSync(join(ws.dir, "MEMORY.md"), "utf8")).toBe("Nothing yet.\n");
    await expectNothingExecuted();
  });

  it("verifies the ledger with progress, finds a session's entries and shows an inclusion proof that checks", async () => {
    await page.goto(`${running.origin}/ledger`);
    await page.locator("#ledger-status[data-done]").waitFor({ timeout: 60_000 });
    expect(await page.locator("#ledger-status").innerText()).toMatch(/Verified: \d+ entries in 1 chain/);
    expect(await page.locator("#ledger-status").innerText()).toMatch(/Latest checkpoint .* verified\. signed by the checkpoint key; the ledger still extends it/);
    await shot("ledger");
    await page.locator('input[name="session"]').fill("s1");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/\/ledger\?session=/);
    expect(await page.locator("table.entries tbody tr").count()).toBeGreaterThan(0);
    await page.locator("table.entries tbody tr a").first().click();
    await page.waitForURL(/\/ledger\/entries\/\d+$/);
    expect(await page.locator(".notice-ok").innerText()).toContain("Proof checks");
    expect(await page.locator("#proof").innerText()).toContain('"kind": "inclusion"');
    await shot("ledger-proof");
    await expectNothingExecuted();
  });

  it("draws a 1,003-node turn as a layered graph with the high-water-mark path highlighted", async () => {
    await page.goto(`${running.origin}/graphs`);
    await shot("graphs");
    await openGraph("big-turn");
    expect(await page.locator("svg#graph g.node").count()).toBe(1003);
    expect(await page.locator("svg#graph path.edge").count()).toBe(1002);
    expect(await page.locator("svg#graph g.node.hwm").count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator("svg#graph g.node.source").count()).toBe(1);
    // Laid out, not stacked: every node below its parent.
    const ys = (await page.evaluate('Array.from(document.querySelectorAll("svg#graph g.node")).slice(0, 50).map((n) => n.getBoundingClientRect().top)')) as number[];
    expect(ys).toHaveLength(50);
    for (let i = 1; i < ys.length; i++) expect(ys[i]).toBeGreaterThan(ys[i - 1] as number);
    await page.locator("svg#graph g.node.source").click();
    expect(await page.locator("#node-details").innerText()).toContain("web_fetch");
    await shot("graph-1000-nodes");
    await page.locator("#graph-fit").click();
    expect(await page.locator("svg#graph.fit").count()).toBe(1);
    await expectNothingExecuted();
  });

  it("renders a graph whose labels, tool names and session carry HTML, script and escapes without running any of it", async () => {
    await page.goto(`${running.origin}/graphs`);
    await openGraph("forged#1");
    expect(await page.locator("svg#graph script, svg#graph img, svg#graph foreignObject, svg#graph a").count()).toBe(0);
    expect(await page.locator("svg#graph g.node").nth(1).locator("title").textContent()).toContain("<script>window.__pwned=1</script>");
    await page.locator("svg#graph g.node").nth(1).click();
    expect(await page.locator("#node-details").innerText()).toContain("\\x1b[2J");
    await shot("graph-hostile-labels");
    await expectNothingExecuted();
  });

  it("had no console errors and no dialogs on any page", () => {
    expect(problems).toEqual([]);
    expect(dialogs).toEqual([]);
  });

  it("a page on another origin cannot drive the console: its POST carries no cookie and no CSRF header", async () => {
    const before = readFileSync(join(ws.dir, ".provenance", "watermarks.json"), "utf8");
    const attacker = await context.newPage();
    let status = 0;
    attacker.on("response", (r) => {
      if (r.url().startsWith(running.origin)) status = r.status();
    });
    // about:blank is another origin; the form posts straight at the console, as a CSRF page would.
    await attacker.setContent(
      `<form id="f" method="post" action="${running.origin}/sessions/reset"><input name="session" value="s1"><input name="level" value="trusted"></form>`,
    );
    await Promise.all([attacker.waitForNavigation(), attacker.evaluate('document.getElementById("f").submit()')]);
    expect(status).toBe(403);
    expect(readFileSync(join(ws.dir, ".provenance", "watermarks.json"), "utf8")).toBe(before);
    await attacker.close();
  });
});
