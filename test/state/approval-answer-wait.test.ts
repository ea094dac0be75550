import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { awaitAnswer } from "../../src/state/approval-answer-wait.js";
import { PendingApprovalStore } from "../../src/state/pending-approval-store.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function held(): PendingApprovalStore {
  const ws = mkdtempSync(join(tmpdir(), "provenant-await-"));
  dirs.push(ws);
  const s = new PendingApprovalStore(ws);
  s.hold({
    version: 2,
    code: "0123abcd",
    frontEnd: "mcp",
    origin: "fs",
    sessionId: "mcp",
    tool: "mcp__fs__write_file",
    call: "mcp__fs__write_file {}",
    reason: "held",
    taint: "untrusted",
    source: null,
    arguments: null,
    createdAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
    waitingUntil: new Date(Date.now() + 600_000).toISOString(),
    pid: process.pid,
  });
  return s;
}

describe("awaitAnswer", () => {
  it("resolves with the answer soon after it is written, through another store on the same directory", async () => {
    const s = held();
    const waiting = awaitAnswer(s, "0123abcd", { deadlineMs: Date.now() + 120_000 });
    let settled = false;
    void waiting.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 450));
    expect(settled).toBe(false);
    // The answer is written as the console writes it, through a second store on the same directory.
    new PendingApprovalStore(join(s.dir, "..", "..")).answer("0123abcd", "approve", { scope: "turn", minutes: null, by: "console", now: Date.now() });
    await expect(waiting).resolves.toMatchObject({ code: "0123abcd", verdict: "approve", scope: "turn" });
  });

  it("resolves null at the deadline, and at once when the deadline is past", async () => {
    const s = held();
    await expect(awaitAnswer(s, "0123abcd", { deadlineMs: Date.now() + 300 })).resolves.toBeNull();
    await expect(awaitAnswer(s, "0123abcd", { deadlineMs: Date.now() - 1 })).resolves.toBeNull();
  });

  it("resolves null when aborted, before or during the wait, and leaves no timer running", async () => {
    const s = held();
    const before = new AbortController();
    before.abort();
    await expect(awaitAnswer(s, "0123abcd", { deadlineMs: Date.now() + 600_000, signal: before.signal })).resolves.toBeNull();
    const during = new AbortController();
    const waiting = awaitAnswer(s, "0123abcd", { deadlineMs: Date.now() + 600_000, signal: during.signal });
    setTimeout(() => during.abort(), 250);
    await expect(waiting).resolves.toBeNull();
  });

  it("an answer already there is returned at once; a planted answer for another code is not this code's", async () => {
    const s = held();
    s.answer("0123abcd", "deny", { minutes: null, by: "cli", now: Date.now() });
    await expect(awaitAnswer(s, "0123abcd", { deadlineMs: Date.now() + 60_000 })).resolves.toMatchObject({ verdict: "deny" });
    await expect(awaitAnswer(s, "ffffffff", { deadlineMs: Date.now() + 300 })).resolves.toBeNull();
    await expect(awaitAnswer(s, "../../etc", { deadlineMs: Date.now() + 300 })).resolves.toBeNull();
  });
});
