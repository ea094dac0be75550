import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ApprovalStoreError, PendingApprovalStore, parseApprovalRecord, type PendingApproval } from "../../src/state/pending-approval-store.js";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const held = (code: string, over: Partial<PendingApproval> = {}): PendingApproval => ({
  version: 2,
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
  arguments: null,
  waitingUntil: null,
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

describe("PendingApprovalStore version 2", () => {
  const args: PendingApproval["arguments"] = [
    {
      path: "path",
      role: "target",
      value: "notes.txt",
      determined: false,
      finding: "only from mcp__fs__read_text_file (untrusted)",
      sources: [{ id: "c2", kind: "tool", tool: "mcp__fs__read_text_file", trust: "untrusted", how: "text" }],
    },
  ];

  it("keeps each argument's provenance and the answer's scope: call, turn, or minutes", () => {
    const { s } = store();
    s.hold(held("0000000a", { arguments: args, waitingUntil: new Date(NOW + 50_000).toISOString() }));
    expect(s.pending("0000000a")?.arguments).toEqual(args);
    expect(s.answer("0000000a", "approve", { scope: "turn", minutes: null, by: "console", now: NOW }).waitingUntil).toBe(new Date(NOW + 50_000).toISOString());
    expect(s.answerFor("0000000a")).toMatchObject({ version: 2, verdict: "approve", scope: "turn", minutes: null });
    s.answer("0000000a", "approve", { minutes: 30, by: "cli", now: NOW });
    expect(s.answerFor("0000000a")).toMatchObject({ scope: "minutes", minutes: 30 });
    s.answer("0000000a", "deny", { minutes: null, by: "cli", now: NOW });
    expect(s.answerFor("0000000a")).toMatchObject({ verdict: "deny", scope: null, minutes: null });
    // A scope that contradicts its minutes is not an answer the store writes.
    expect(() => s.answer("0000000a", "approve", { scope: "minutes", minutes: null, by: "cli", now: NOW })).toThrow(ApprovalStoreError);
    expect(() => s.answer("0000000a", "approve", { scope: "turn", minutes: 5, by: "cli", now: NOW })).toThrow(ApprovalStoreError);
  });

  it("reads version 1 files as version 2 says, and refuses a version it does not know by name", () => {
    const { s, bad } = store();
    mkdirSync(join(s.dir, "pending"), { recursive: true });
    mkdirSync(join(s.dir, "answers"), { recursive: true });
    const { arguments: _a, waitingUntil: _w, ...v1 } = held("0000000c");
    writeFileSync(join(s.dir, "pending", "0000000c.json"), JSON.stringify({ ...v1, version: 1 }));
    expect(s.pending("0000000c")).toMatchObject({ version: 2, arguments: null, waitingUntil: null });
    writeFileSync(join(s.dir, "answers", "0000000c.json"), JSON.stringify({ version: 1, code: "0000000c", verdict: "approve", minutes: null, answeredAt: new Date(NOW).toISOString(), by: "cli" }));
    expect(s.answerFor("0000000c")).toMatchObject({ scope: "call", minutes: null });
    writeFileSync(join(s.dir, "answers", "0000000c.json"), JSON.stringify({ version: 1, code: "0000000c", verdict: "approve", minutes: 7, answeredAt: new Date(NOW).toISOString(), by: "cli" }));
    expect(s.answerFor("0000000c")).toMatchObject({ scope: "minutes", minutes: 7 });
    writeFileSync(join(s.dir, "answers", "0000000c.json"), JSON.stringify({ version: 3, code: "0000000c", verdict: "approve" }));
    expect(s.answerFor("0000000c")).toBeNull();
    expect(bad.join("\n")).toMatch(/approval store version 3 is not one this provenant reads \(1 or 2\); upgrade provenant/);
    // A pending file whose code is not its name is not that code's record.
    writeFileSync(join(s.dir, "pending", "0000000d.json"), JSON.stringify(held("0000000e")));
    expect(s.pending("0000000d")).toBeNull();
  });

  it("fuzz: the record parser never throws, and whatever it accepts keeps the store's invariants", () => {
    const valid = held("0123abcd", { arguments: args });
    const validAnswer = { version: 2, code: "0123abcd", verdict: "approve", scope: "minutes", minutes: 5, answeredAt: new Date(NOW).toISOString(), by: "cli" };
    const anyJson = fc.jsonValue({ maxDepth: 4 });
    // Valid records with one field replaced by anything, and arbitrary text.
    const mutated = (base: Record<string, unknown>) =>
      fc.tuple(fc.constantFrom(...Object.keys(base)), anyJson).map(([k, v]) => JSON.stringify({ ...base, [k]: v }));
    const text = fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), anyJson.map((v) => JSON.stringify(v)), mutated(valid), mutated(validAnswer));
    fc.assert(
      fc.property(text, (t) => {
        const p = parseApprovalRecord("pending", t);
        if (p.ok) {
          expect(p.record.version).toBe(2);
          expect(p.record.code).toMatch(/^[0-9a-f]{8}$/);
          expect(p.record.arguments === null || p.record.arguments.length <= 200).toBe(true);
        } else expect(typeof p.detail).toBe("string");
        const a = parseApprovalRecord("answer", t);
        if (a.ok) {
          const r = a.record;
          expect(r.code).toMatch(/^[0-9a-f]{8}$/);
          if (r.verdict === "deny") expect([r.scope, r.minutes]).toEqual([null, null]);
          else expect(r.scope === "minutes" ? r.minutes !== null && r.minutes >= 1 && r.minutes <= 1440 : r.minutes === null && r.scope !== null).toBe(true);
        } else expect(typeof a.detail).toBe("string");
      }),
      { numRuns: 1500 },
    );
    expect(parseApprovalRecord("pending", JSON.stringify(valid)).ok).toBe(true);
    expect(parseApprovalRecord("answer", JSON.stringify(validAnswer)).ok).toBe(true);
    // Own keys only: a __proto__ key is an unknown field, not a prototype.
    expect(parseApprovalRecord("answer", `{"__proto__":{"verdict":"approve"},${JSON.stringify(validAnswer).slice(1)}`).ok).toBe(false);
  });
});

describe("PendingApprovalStore: the rules behind an answer", () => {
  const answerText = (over: Record<string, unknown>) =>
    JSON.stringify({ version: 2, code: "0123abcd", verdict: "approve", scope: "call", minutes: null, answeredAt: new Date(NOW).toISOString(), by: "cli", ...over });

  it("an approval names its scope, minutes exactly for a minutes scope; a denial names neither", () => {
    for (const over of [{}, { scope: "turn" }, { scope: "minutes", minutes: 5 }, { verdict: "deny", scope: null }]) {
      expect(parseApprovalRecord("answer", answerText(over)).ok, JSON.stringify(over)).toBe(true);
    }
    for (const over of [{ scope: null }, { scope: "minutes" }, { scope: "call", minutes: 5 }, { verdict: "deny" }, { verdict: "deny", scope: null, minutes: 5 }]) {
      const parsed = parseApprovalRecord("answer", answerText(over));
      expect(parsed.ok, JSON.stringify(over)).toBe(false);
      expect(!parsed.ok && parsed.detail).toMatch(/^not an approval record: \(root\): an approval names its scope/);
    }
  });

  it("a version 1 denial becomes a denial with no scope, whatever minutes it carried", () => {
    const v1 = JSON.stringify({ version: 1, code: "0123abcd", verdict: "deny", minutes: 5, answeredAt: new Date(NOW).toISOString(), by: "cli" });
    expect(parseApprovalRecord("answer", v1)).toMatchObject({ ok: true, record: { version: 2, verdict: "deny", scope: null, minutes: null } });
  });

  it("says why a file is not a record: not JSON, which fields, or a version it does not read", () => {
    const detail = (text: string) => {
      const parsed = parseApprovalRecord("answer", text);
      return parsed.ok ? "ok" : parsed.detail;
    };
    expect(detail("{")).toMatch(/^not JSON \(/);
    expect(detail("[]")).toMatch(/^not an approval record: \(root\): /);
    expect(detail(answerText({ version: undefined }))).toMatch(/^not an approval record: /);
    expect(detail(answerText({ code: "xyz", by: "" }))).toMatch(/^not an approval record: code: .+; by: /);
    expect(detail(JSON.stringify({ version: 1, code: "0123abcd" }))).toMatch(/^not an approval record: /);
    expect(detail(JSON.stringify({ version: "2" }))).toBe('approval store version "2" is not one this provenant reads (1 or 2); upgrade provenant');
    expect(new ApprovalStoreError("x").name).toBe("ApprovalStoreError");
  });

  it("takes a code as the owner types it; a denial is stored with no scope; an answer the schema refuses says why", () => {
    const { s } = store();
    s.hold(held("0123abcd"));
    expect(s.answer(" 0123ABCD\n", "deny", { minutes: 5, by: "cli", now: NOW }).code).toBe("0123abcd");
    expect(s.answerFor("0123abcd")).toMatchObject({ verdict: "deny", scope: null, minutes: null });
    expect(() => s.answer("0123abcd", "approve", { scope: "minutes", minutes: null, by: "cli", now: NOW })).toThrow(/^not an answer the store takes: an approval names its scope/);
    expect(() => s.answer("../0123abcd", "approve", { minutes: null, by: "cli", now: NOW })).toThrow('"../0123abcd" is not an approval code (8 hexadecimal characters)');
  });

  it("removing a code that is not one touches nothing, not even a file the name would reach", () => {
    const { s, ws } = store();
    s.hold(held("0123abcd"));
    const watermarks = join(ws, ".provenance", "watermarks.json");
    writeFileSync(watermarks, "{}");
    s.remove("../../watermarks");
    expect(existsSync(watermarks)).toBe(true);
    expect(s.pending("0123abcd")).not.toBeNull();
  });

  it("a sweep leaves its own records that have not expired; one that expires this instant goes", () => {
    const { s } = store();
    s.hold(held("0000000a", { pid: 7, expiresAt: new Date(NOW).toISOString() }));
    s.hold(held("0000000b", { pid: 7, expiresAt: new Date(NOW + 1).toISOString() }));
    s.sweep(7, NOW);
    expect([s.pending("0000000a"), s.pending("0000000b")?.code]).toEqual([null, "0000000b"]);
  });

  it("lists held calls oldest first; a pending directory that is not one is an error, not an empty list", () => {
    const { s } = store();
    s.hold(held("0000000b", { createdAt: new Date(NOW - 1000).toISOString() }));
    s.hold(held("0000000a", { createdAt: new Date(NOW - 500).toISOString() }));
    s.hold(held("0000000c", { createdAt: new Date(NOW - 2000).toISOString() }));
    expect(s.list(NOW).map((e) => e.pending.code)).toEqual(["0000000c", "0000000b", "0000000a"]);
    const broken = store();
    mkdirSync(broken.s.dir, { recursive: true });
    writeFileSync(join(broken.s.dir, "pending"), "not a directory");
    expect(() => broken.s.list(NOW)).toThrow(/ENOTDIR/);
  });
});
