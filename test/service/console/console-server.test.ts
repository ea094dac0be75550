import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsole, type RunningConsole } from "../../../src/service/console/console-server.js";
import { CONTENT_SECURITY_POLICY } from "../../../src/service/console/console-security.js";
import { formField } from "../../../src/service/console/console-widgets.js";
import { HOSTILE_SESSION, makeConsoleWorkspace, type ConsoleWorkspace } from "./console-fixture.js";
import { login, rawRequest } from "./console-http.js";

describe("console server over real HTTP", () => {
  let ws: ConsoleWorkspace;
  let running: RunningConsole;
  let cookie: string;
  let csrf: string;
  const logged: string[] = [];

  beforeAll(async () => {
    ws = makeConsoleWorkspace();
    running = await startConsole({ workspace: ws.dir, env: { PROVENANT_LEDGER_PUBKEY: ws.checkpointPublicKey }, log: (m) => logged.push(m) });
    ({ cookie, csrf } = await login(running.port, running.loginUrl));
  });
  afterAll(async () => {
    await running?.close();
    ws?.cleanup();
  });

  const post = (path: string, body: string, headers: Record<string, string>) =>
    rawRequest(running.port, { method: "POST", path, body, headers: { "content-type": "application/x-www-form-urlencoded", ...headers } });
  const watermarkLevel = (session: string): unknown =>
    (JSON.parse(readFileSync(join(ws.dir, ".provenance", "watermarks.json"), "utf8")) as { watermarks: Record<string, { level: string }> }).watermarks[session]?.level;

  it("listens on loopback only and prints a login URL with a 256-bit token", () => {
    expect(running.loginUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\?token=[0-9a-f]{64}$/);
  });

  it("refuses the one-time token a second time, and any other token", async () => {
    const url = new URL(running.loginUrl);
    expect((await rawRequest(running.port, { path: `${url.pathname}${url.search}` })).status).toBe(403);
    expect((await rawRequest(running.port, { path: "/login?token=00" })).status).toBe(403);
    // The browser that logged in may open the printed URL again: it is sent on, and gets no new cookie.
    const again = await rawRequest(running.port, { path: `${url.pathname}${url.search}`, headers: { cookie } });
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe("/approvals");
    expect(again.headers["set-cookie"]).toBeUndefined();
  });

  it("refuses every page and asset without the session cookie, or with a wrong one", async () => {
    for (const path of ["/", "/approvals", "/approvals/stream", "/sessions", "/writes", "/ledger", "/ledger/verify", "/graphs", "/assets/console.js", "/nowhere"]) {
      const res = await rawRequest(running.port, { path });
      expect(res.status, path).toBe(403);
      expect(res.body).toBe("forbidden");
      expect((await rawRequest(running.port, { path, headers: { cookie: "provenant_console=" + "0".repeat(64) } })).status, path).toBe(403);
    }
  });

  it("refuses a Host that is not a loopback name of this console (DNS rebinding), even with the cookie", async () => {
    for (const host of ["evil.example", `evil.example:${running.port}`, `127.0.0.1:${running.port + 1}`, `localhost.evil.example:${running.port}`, `[::1]:${running.port + 1}`]) {
      const res = await rawRequest(running.port, { path: "/sessions", headers: { host, cookie } });
      expect(res.status, host).toBe(403);
    }
    expect((await rawRequest(running.port, { path: "/sessions", headers: { host: `localhost:${running.port}`, cookie } })).status).toBe(200);
  });

  it("refuses a POST without the CSRF header, with a wrong one, from another Origin or with none, and changes nothing", async () => {
    const body = `sessionRef=${formField("s1")}&level=trusted`;
    const origin = running.origin;
    const attempts: Record<string, string>[] = [
      { cookie, origin },
      { cookie, origin, "x-provenant-csrf": "f".repeat(64) },
      { cookie, origin: "http://evil.example", "x-provenant-csrf": csrf },
      { cookie, origin: `http://127.0.0.1:${running.port + 1}`, "x-provenant-csrf": csrf },
      { cookie, origin: "null", "x-provenant-csrf": csrf },
      { cookie, "x-provenant-csrf": csrf },
      { origin, "x-provenant-csrf": csrf },
    ];
    for (const headers of attempts) expect((await post("/sessions/reset", body, headers)).status, JSON.stringify(headers)).toBe(403);
    expect(watermarkLevel("s1")).toBe("untrusted");
    const staged = ws.stagedIds();
    for (const id of staged) expect((await post(`/writes/${id}/discard`, "", { cookie, origin })).status).toBe(403);
    expect(ws.stagedIds().sort()).toEqual(staged.sort());
    expect(logged.some((m) => m.includes("(csrf)"))).toBe(true);
    expect(logged.some((m) => m.includes("(origin)"))).toBe(true);
  });

  it("sends the security headers on pages and on refusals", async () => {
    for (const res of [await rawRequest(running.port, { path: "/sessions", headers: { cookie } }), await rawRequest(running.port, { path: "/sessions" })]) {
      expect(res.headers["content-security-policy"]).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers["content-security-policy"]).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(res.headers["x-frame-options"]).toBe("DENY");
    }
  });

  it("renders hostile session names escaped: no markup from them, escapes visible", async () => {
    const res = await rawRequest(running.port, { path: "/sessions", headers: { cookie } });
    expect(res.body).not.toContain("<script>window.__pwned");
    expect(res.body).not.toContain("<img src=x");
    expect(res.body).not.toContain("\u001b");
    expect(res.body).not.toContain("\u202e");
    expect(res.body).toContain("&lt;script&gt;window.__pwned=1&lt;/script&gt;");
    expect(res.body).toContain("<span class=esc>\\x1b</span>");
    expect(res.body).toContain("<span class=esc>\\u202e</span>");
  });

  it("resets a session with a valid POST: the store's reset history and the ledger's trust-reset entry", async () => {
    const res = await post("/sessions/reset", `sessionRef=${formField(HOSTILE_SESSION)}&level=shared`, { cookie, origin: running.origin, "x-provenant-csrf": csrf });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ ok: true, redirect: "/sessions?done=reset" });
    const file = JSON.parse(readFileSync(join(ws.dir, ".provenance", "watermarks.json"), "utf8")) as { watermarks: Record<string, { level: string; resetHistory: { resetBy: string; previousLevel: string; newLevel: string }[] }> };
    const w = file.watermarks[HOSTILE_SESSION];
    expect(w?.level).toBe("shared");
    expect(w?.resetHistory.at(-1)).toMatchObject({ resetBy: "owner (console)", previousLevel: "untrusted", newLevel: "shared" });
    const last = readFileSync(join(ws.dir, ".provenance", "ledger.jsonl"), "utf8").trim().split("\n").at(-1) ?? "";
    expect(JSON.parse(last)).toMatchObject({ type: "CLAIM", data: { kind: "trust-reset", sessionId: HOSTILE_SESSION, from: "untrusted", to: "shared", via: "console" } });
  });

  it("refuses a reset to a level that is not one, and a malformed session reference", async () => {
    const headers = { cookie, origin: running.origin, "x-provenant-csrf": csrf };
    expect((await post("/sessions/reset", `sessionRef=${formField("s1")}&level=root`, headers)).status).toBe(400);
    expect((await post("/sessions/reset", `sessionRef=zz&level=trusted`, headers)).status).toBe(400);
    expect((await post("/sessions/reset", `sessionRef=${formField("s1")}&level=__proto__`, headers)).status).toBe(400);
    expect(watermarkLevel("s1")).toBe("untrusted");
  });

  it("refuses a reset the ledger cannot record (a running agent holds its writer lock)", async () => {
    const { openLedger } = await import("../../../src/ledger/index.js");
    const held = openLedger(join(ws.dir, ".provenance", "ledger.jsonl"));
    try {
      const res = await post("/sessions/reset", `sessionRef=${formField("s1")}&level=trusted`, { cookie, origin: running.origin, "x-provenant-csrf": csrf });
      expect(JSON.parse(res.body)).toMatchObject({ ok: false });
      expect(watermarkLevel("s1")).toBe("untrusted");
    } finally {
      held.close();
    }
  });

  it("answers a body over the limit with 413 and does nothing", async () => {
    const res = await post("/sessions/reset", `sessionRef=${formField("s1")}&level=trusted&pad=${"x".repeat(20_000)}`, { cookie, origin: running.origin, "x-provenant-csrf": csrf });
    expect(res.status).toBe(413);
    expect(watermarkLevel("s1")).toBe("untrusted");
  });

  it("never lets a URL reach the store with anything but a full id", async () => {
    for (const id of ["..%2F..%2Fetc%2Fpasswd", "8250d4", "__proto__", "A".repeat(32)]) {
      expect((await rawRequest(running.port, { path: `/writes/${id}`, headers: { cookie } })).status).toBe(404);
      expect((await post(`/writes/${id}/commit`, "", { cookie, origin: running.origin, "x-provenant-csrf": csrf })).status).toBe(404);
    }
  });

  it("streams verification progress and the verdict; a rewritten entry is reported, and the checkpoint with it", async () => {
    const ok = await rawRequest(running.port, { path: "/ledger/verify", headers: { cookie } });
    expect(ok.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(ok.body).toMatch(/event: progress\ndata: \{"done":\d+,"total":\d+\}/);
    expect(ok.body).toContain("<strong>Verified:</strong>");
    expect(ok.body).toMatch(/Latest checkpoint<\/strong> \(.*\): verified\./);
    const ledger = join(ws.dir, ".provenance", "ledger.jsonl");
    const lines = readFileSync(ledger, "utf8").split("\n");
    lines[3] = (lines[3] ?? "").replace('"type":"CLAIM"', '"type":"META"');
    writeFileSync(ledger, lines.join("\n"));
    const bad = await rawRequest(running.port, { path: "/ledger/verify", headers: { cookie } });
    expect(bad.body).toContain("<strong>Does not verify:</strong> CORRUPT at chain 0 seq 3");
    expect(bad.body).toMatch(/Latest checkpoint<\/strong> \(.*\): violated\. the ledger does not verify/);
    const proof = await rawRequest(running.port, { path: "/ledger/entries/5", headers: { cookie } });
    expect(proof.status).toBe(404);
    expect(proof.body).toContain("the ledger does not verify, so no proof is given");
  });

  it("any body posted with valid credentials gets an answer, never a 500, and only a valid reset changes a watermark", async () => {
    const file = join(ws.dir, ".provenance", "watermarks.json");
    const body = fc.oneof(
      fc.string({ unit: "binary", maxLength: 300 }),
      fc.record({ sessionRef: fc.string({ maxLength: 40 }), level: fc.constantFrom("trusted", "root", "__proto__", "", "untrusted\u0000"), session: fc.string({ maxLength: 20 }) }).map((f) => new URLSearchParams(f).toString()),
    );
    const contentType = fc.constantFrom("application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json", "text/plain");
    await fc.assert(
      fc.asyncProperty(body, contentType, fc.constantFrom("/sessions/reset", `/writes/${"0".repeat(32)}/commit`, "/approvals/0000abcd/answer"), async (b, type, path) => {
        const before = readFileSync(file, "utf8");
        const res = await post(path, b, { cookie, origin: running.origin, "x-provenant-csrf": csrf, "content-type": type });
        expect(res.status).not.toBe(500);
        expect(res.status).toBeLessThan(500);
        if (res.status !== 200) expect(readFileSync(file, "utf8")).toBe(before);
      }),
      { numRuns: 150 },
    );
  });
});
