import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ApprovalStoreError, PendingApprovalStore, type PendingApproval } from "../../src/state/pending-approval-store.js";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const held = (code: string, over: Partial<PendingApproval> = {}): PendingApproval => ({
  version: 1,
  code,
  frontEnd: "mcp",
  origin: "fs",
  sessionId: "mcp",
  tool: "mcp__fs__write_file",
  call: 'mcp__fs__write_file {"path":"x"}',
  reason: "Tool 'mcp__fs__write_file' is blocked by security policy",
  taint: "untrusted",
  source: "mcp__fs__read_text_file response (untrusted)",
  createdAt: new Date(NOW).toISOString(),
  expiresAt: new Date(NOW + 60_000).toISOString(),
  pid: 4242,
  ...over,
});

function store(): { s: PendingApprovalStore; ws: string; bad: string[] } {
  const ws = made(mkdtempSync(join(tmpdir(), "provenant-approvals-")));
  const bad: string[] = [];
  return { s: new PendingApprovalStore(ws, (file, detail) => bad.push(`${file}: ${detail}`)), ws, bad };
}

const dirs: string[] = [];
const made = (dir: string): string => {
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("PendingApprovalStore", () => {
  it("lists held calls and records the owner's answer, in owner-only files", () => {
    const { s } = store();
    s.hold(held("0123abcd"));
    expect(s.list(NOW).map((e) => [e.pending.code, e.answer])).toEqual([["0123abcd", null]]);
    s.answer("0123ABCD", "approve", { minutes: null, by: "cli", now: NOW + 1 });
    expect(s.answerFor("0123abcd")).toMatchObject({ verdict: "approve", minutes: null, by: "cli" });
    expect(statSync(join(s.dir, "pending", "0123abcd.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(s.dir, "answers", "0123abcd.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(s.dir, "answers")).mode & 0o777).toBe(0o700);
    s.remove("0123abcd");
    expect(s.list(NOW)).toEqual([]);
    expect(s.answerFor("0123abcd")).toBeNull();
  });

  it("refuses codes that are not codes, codes nothing holds, and expired ones", () => {
    const { s } = store();
    s.hold(held("0123abcd"));
    expect(() => s.answer("../../x", "approve", { minutes: null, by: "cli", now: NOW })).toThrow(ApprovalStoreError);
    expect(() => s.answer("ffffffff", "approve", { minutes: null, by: "cli", now: NOW })).toThrow(/no call is held/);
    expect(() => s.answer("0123abcd", "approve", { minutes: null, by: "cli", now: NOW + 60_000 })).toThrow(/expired/);
    expect(s.list(NOW + 60_000)).toEqual([]);
    expect(() => s.hold(held("../evil"))).toThrow();
  });

  it("ignores and reports files that are not its records, and never follows a link", () => {
    const { s, bad } = store();
    mkdirSync(join(s.dir, "pending"), { recursive: true });
    writeFileSync(join(s.dir, "pending", "00000001.json"), "{");
    writeFileSync(join(s.dir, "pending", "00000002.json"), JSON.stringify({ ...held("00000002"), extra: 1 }));
    const elsewhere = join(made(mkdtempSync(join(tmpdir(), "provenant-elsewhere-"))), "held.json");
    writeFileSync(elsewhere, JSON.stringify(held("00000003")));
    symlinkSync(elsewhere, join(s.dir, "pending", "00000003.json"));
    expect(s.list(NOW)).toEqual([]);
    expect(bad).toHaveLength(3);
    // An answer file planted for another code is not an answer to this one.
    s.hold(held("0000000a"));
    mkdirSync(join(s.dir, "answers"), { recursive: true });
    writeFileSync(join(s.dir, "answers", "0000000a.json"), JSON.stringify({ version: 1, code: "0000000b", verdict: "approve", minutes: null, answeredAt: new Date(NOW).toISOString(), by: "x" }));
    expect(s.answerFor("0000000a")).toBeNull();
  });

  it("sweeps only its own expired records", () => {
    const { s } = store();
    s.hold(held("0000000a", { expiresAt: new Date(NOW - 1).toISOString() }));
    s.hold(held("0000000b", { expiresAt: new Date(NOW - 1).toISOString(), pid: 1 }));
    s.sweep(4242, NOW);
    expect(existsSync(join(s.dir, "pending", "0000000a.json"))).toBe(false);
    expect(existsSync(join(s.dir, "pending", "0000000b.json"))).toBe(true);
  });
});
