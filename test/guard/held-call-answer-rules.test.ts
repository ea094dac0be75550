import { describe, expect, it } from "vitest";
import type { Decision, DecisionArgument } from "../../src/core/decision.js";
import { applyStoredAnswer, heldCallRecord, shownCall } from "../../src/guard-held-calls.js";
import { MAX_PENDING_ARGUMENTS, PendingApprovalStore, type ApprovalAnswer } from "../../src/state/pending-approval-store.js";
import { answer, held, taintedGuard } from "./held-call-fixture.js";
import { OWNER } from "./helpers.js";

const record = (decision: Decision, over: { frontEnd?: string } = {}) =>
  heldCallRecord({ decision, frontEnd: over.frontEnd ?? "claude-code", origin: "o", sessionId: "s", now: Date.now(), expiresAt: Date.now() + 60_000, waitingUntil: null });

describe("the held call's record: what the owner is shown", () => {
  it("rule: the record's call is the exact call from the guard's `Call: ` line, without the prefix", () => {
    const { guard, workspaceDir } = taintedGuard();
    const { decision } = held(guard, workspaceDir, "w1");
    const line = decision.reason.split("\n").find((l) => l.startsWith("Call: "));
    expect(line).toBeDefined();
    const shown = (line ?? "").slice("Call: ".length);
    // The shown call names the target file, which the bare tool name would not.
    expect(shown).toContain("notes.txt");
    expect(shownCall(decision)).toBe(shown);
    expect(record(decision).call).toBe(shown);
  });

  it("rule: a decision without a `Call: ` line is shown by its tool's name, escaped", () => {
    const bare: Decision = { tool: "Wri\u001bte", verdict: "confirm", taint: "untrusted", rule: "x", reason: "held\nno call line here\nRecall: not this", code: "0123abcd", provenance: null };
    expect(shownCall(bare)).toBe("Wri\\x1bte");
    // A `Call: ` that is not at the start of a line is not the call line.
    expect(shownCall({ ...bare, reason: "first\nsee Call: spoofed" })).toBe("Wri\\x1bte");
  });

  it("rule: the record's reason is the first line of the guard's reason only", () => {
    const { guard, workspaceDir } = taintedGuard();
    const { decision } = held(guard, workspaceDir, "w1");
    const first = decision.reason.split("\n")[0] ?? "";
    expect(first.length).toBeGreaterThan(1);
    expect(record(decision).reason).toBe(first);
  });

  it("rule: only a confirm is recorded, even when a block carries a code", () => {
    const { guard, workspaceDir } = taintedGuard();
    const { decision } = held(guard, workspaceDir, "w1");
    expect(() => record({ ...decision, verdict: "block" })).toThrow("only a held call (confirm with a code) is recorded, not block");
  });

  it("rule: a field is kept whole up to its bound and cut to the bound (ending in an ellipsis) beyond it", () => {
    const { guard, workspaceDir } = taintedGuard();
    const { decision } = held(guard, workspaceDir, "w1");
    expect(record(decision, { frontEnd: "f".repeat(100) }).frontEnd).toBe("f".repeat(100));
    expect(record(decision, { frontEnd: "f".repeat(101) }).frontEnd).toBe(`${"f".repeat(99)}\u2026`);
    // The cut record is one the store accepts (its schema bounds frontEnd at 100).
    const store = new PendingApprovalStore(workspaceDir);
    const cut = record(decision, { frontEnd: "g".repeat(150) });
    store.hold(cut);
    expect(store.pending(cut.code)?.frontEnd).toBe(`${"g".repeat(99)}\u2026`);
  });

  it("rule: a call with more arguments (or sources) than the store holds is recorded with the first ones, and the store takes it", () => {
    const { guard, workspaceDir } = taintedGuard();
    const { decision } = held(guard, workspaceDir, "w1");
    const source = (i: number) => ({ id: `src${i}`, kind: "tool" as const, tool: "WebFetch", trust: "untrusted" as const, how: "text" as const });
    const argument = (i: number): DecisionArgument => ({
      path: `a${i}`,
      role: "data",
      value: "v",
      determined: false,
      finding: "from the page",
      // Only the first argument has too many sources: the whole record must stay under the store's file size.
      sources: Array.from({ length: i === 0 ? 101 : 1 }, (_, j) => source(j)),
    });
    const many = { ...decision, arguments: Array.from({ length: MAX_PENDING_ARGUMENTS + 1 }, (_, i) => argument(i)) };
    const r = record(many);
    expect(r.arguments).toHaveLength(MAX_PENDING_ARGUMENTS);
    expect(r.arguments?.[MAX_PENDING_ARGUMENTS - 1]?.path).toBe(`a${MAX_PENDING_ARGUMENTS - 1}`);
    expect(r.arguments?.[0]?.sources).toHaveLength(100);
    expect(r.arguments?.[0]?.sources[99]?.id).toBe("src99");
    const store = new PendingApprovalStore(workspaceDir);
    store.hold(r);
    expect(store.pending(r.code)?.arguments).toHaveLength(MAX_PENDING_ARGUMENTS);
  });
});

describe("applying the owner's stored answer", () => {
  it("rule: an answer applies to nothing that is not held: a block with a code stays blocked and its code is not spent", () => {
    const { guard, workspaceDir } = taintedGuard();
    const a = held(guard, workspaceDir, "w1");
    const blocked: Decision = { ...a.decision, verdict: "block" };
    const applied = applyStoredAnswer(guard, "s", a.call, blocked, answer(a.decision.code ?? ""));
    expect(applied.decision).toBe(blocked);
    expect(applied.message).toBe("the call is not held: no answer applies");
    // The code is still unanswered: the owner's own approval of it still works.
    expect(guard.approve("s", "Write", a.decision.code ?? "", null, true, "call").accepted).toBe(true);
  });

  it("rule: a confirm without a code, or an allow, is not held: no answer applies", () => {
    const { guard, workspaceDir } = taintedGuard();
    const a = held(guard, workspaceDir, "w1");
    const { code: _code, ...codeless } = a.decision;
    const applied = applyStoredAnswer(guard, "s", a.call, codeless, answer(a.decision.code ?? ""));
    expect(applied).toEqual({ decision: codeless, message: "the call is not held: no answer applies" });
    const allowed: Decision = { tool: "Write", verdict: "allow", taint: "untrusted", rule: "approved", reason: "ok", provenance: null };
    expect(applyStoredAnswer(guard, "s", a.call, allowed, answer(a.decision.code ?? "")).message).toBe("the call is not held: no answer applies");
  });

  it("rule: a denial blocks the call with a reason and a log message naming the tool (and the code)", () => {
    const { guard, workspaceDir } = taintedGuard();
    const a = held(guard, workspaceDir, "w1");
    const code = a.decision.code ?? "";
    const denied = applyStoredAnswer(guard, "s", a.call, a.decision, answer(code, { verdict: "deny", scope: null }));
    expect(denied.decision).toMatchObject({ verdict: "block", rule: "owner-denied", reason: "the owner denied this call (Write)" });
    expect(denied.message).toBe(`the owner denied Write (code ${code})`);
  });

  it("rule: the holder's log names the scope the owner approved: this call, this turn, or N minutes", () => {
    const { guard, workspaceDir } = taintedGuard();
    const scopes: [Partial<ApprovalAnswer>, string][] = [
      [{ scope: "call" }, "this call"],
      [{ scope: "turn" }, "this turn"],
      [{ scope: "minutes", minutes: 7 }, "7 minutes"],
    ];
    for (const [i, [over, words]] of scopes.entries()) {
      // Each scope on a fresh turn, so an earlier turn or minutes grant does not let the next call through unheld.
      guard.endTurn("s");
      guard.beginTurn({ sessionId: "s", sender: OWNER, provider: "claude-code", text: "go on" });
      const a = held(guard, workspaceDir, `w${i}`);
      const code = a.decision.code ?? "";
      const applied = applyStoredAnswer(guard, "s", a.call, a.decision, answer(code, over));
      expect(applied.decision.verdict).toBe("allow");
      const prefix = `the owner approved Write (code ${code}, ${words}): `;
      expect(applied.message.startsWith(prefix)).toBe(true);
      // The guard's own account of the approval follows.
      expect(applied.message.length).toBeGreaterThan(prefix.length);
    }
  });
});
