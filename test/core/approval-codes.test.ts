import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ApprovalCodes } from "../../src/core/approval-codes.js";

const codes = (ttlMs = 120_000, maxWrongAttempts = 3) => new ApprovalCodes({ ttlMs, maxWrongAttempts, randomBytes });

describe("Code-Based Approval", () => {
  it("issues 8 lowercase hex characters from the CSPRNG, one code per session covering every blocked tool", () => {
    const a = codes();
    const first = a.issue("s1", "exec", 0);
    expect(first.code).toMatch(/^[0-9a-f]{8}$/);
    const second = a.issue("s1", "message", 1);
    expect(second.code).toBe(first.code);
    expect(second.tools).toEqual(["exec", "message"]);
    expect(a.issue("s2", "exec", 0).code).not.toBe(first.code);
  });

  it("per-tool approval approves only that tool, turn-scoped by default", () => {
    const a = codes();
    const { code } = a.issue("s1", "exec", 0);
    a.issue("s1", "message", 0);
    expect(a.approve("s1", "exec", code, null, "t2", 10)).toEqual({ ok: true, tools: ["exec"], until: null });
    expect(a.isApproved("s1", "exec", "t2", 20)).toBe(true);
    expect(a.isApproved("s1", "message", "t2", 20)).toBe(false);
    a.endTurn("s1", "t2", 30);
    expect(a.isApproved("s1", "exec", "t3", 40)).toBe(false);
  });

  it("all approves every blocked tool; minutes make it outlive the turn until it expires", () => {
    const a = codes();
    const { code } = a.issue("s1", "exec", 0);
    a.issue("s1", "browser", 0);
    const r = a.approve("s1", "all", code, 30, "t2", 1000);
    expect(r).toEqual({ ok: true, tools: ["exec", "browser"], until: 1000 + 30 * 60_000 });
    a.endTurn("s1", "t2", 2000);
    expect(a.isApproved("s1", "browser", "t9", 2000 + 29 * 60_000)).toBe(true);
    expect(a.isApproved("s1", "browser", "t9", 1000 + 30 * 60_000)).toBe(false);
  });

  it("rejects an expired code", () => {
    const a = codes(120_000);
    const { code } = a.issue("s1", "exec", 0);
    expect(a.approve("s1", "exec", code, null, "t", 120_000)).toMatchObject({ ok: false, failure: "expired" });
  });

  it("a code is single-use", () => {
    const a = codes();
    const { code } = a.issue("s1", "exec", 0);
    expect(a.approve("s1", "exec", code, null, "t", 1).ok).toBe(true);
    expect(a.approve("s1", "exec", code, null, "t", 2)).toMatchObject({ ok: false, failure: "no-pending-code" });
  });

  it("a code is bound to its session", () => {
    const a = codes();
    const { code } = a.issue("s1", "exec", 0);
    a.issue("s2", "exec", 0);
    expect(a.approve("s2", "exec", code, null, "t", 1)).toMatchObject({ ok: false, failure: "wrong-code" });
  });

  it("a code does not approve a tool it was not issued for", () => {
    const a = codes();
    const { code } = a.issue("s1", "exec", 0);
    expect(a.approve("s1", "gateway", code, null, "t", 1)).toMatchObject({ ok: false, failure: "tool-not-blocked" });
  });

  it("repeated wrong codes void the pending code (no brute force within the TTL)", () => {
    const a = codes(120_000, 3);
    const { code } = a.issue("s1", "exec", 0);
    const wrong = code === "00000000" ? "00000001" : "00000000";
    expect(a.approve("s1", "exec", wrong, null, "t", 1).ok).toBe(false);
    expect(a.approve("s1", "exec", wrong, null, "t", 2).ok).toBe(false);
    expect(a.approve("s1", "exec", wrong, null, "t", 3)).toMatchObject({ ok: false, failure: "locked-out" });
    expect(a.approve("s1", "exec", code, null, "t", 4)).toMatchObject({ ok: false, failure: "no-pending-code" });
  });

  it("accepts the code in any letter case", () => {
    const a = codes();
    const { code } = a.issue("s1", "exec", 0);
    expect(a.approve("s1", "exec", code.toUpperCase(), null, "t", 1).ok).toBe(true);
  });
});
