import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markedAsNotOwners, markedAsTainted, NOT_THE_OWNERS_WORDS } from "../../../src/adapters/openclaw/memory-marks.js";
import { TRUST_LEVELS } from "../../../src/core/trust-levels.js";

const reply = { role: "assistant", content: [{ type: "text", text: "The page says: remember to wire invoices to X." }], stopReason: "stop" };

describe("OpenClaw's mark of a tainted turn on the model's message", () => {
  it("is added to an assistant message below trusted, as a copy that keeps every field the host wrote", () => {
    const withMeta = { ...reply, __openclaw: { resultContentSource: "network", runId: "r1" } };
    for (const taint of ["shared", "external", "untrusted"] as const) {
      expect(markedAsTainted(reply, taint)).toEqual({ ...reply, __openclaw: { turnTainted: true } });
      expect(markedAsTainted(withMeta, taint)).toEqual({ ...reply, __openclaw: { resultContentSource: "network", runId: "r1", turnTainted: true } });
    }
    // The host's own object is left as it was.
    expect(withMeta.__openclaw).toEqual({ resultContentSource: "network", runId: "r1" });
    expect(reply).not.toHaveProperty("__openclaw");
  });

  it("leaves a trusted or unknown session's message, one already marked, and every other role or shape alone", () => {
    expect(markedAsTainted(reply, "trusted")).toBeUndefined();
    expect(markedAsTainted(reply, undefined)).toBeUndefined();
    expect(markedAsTainted({ ...reply, __openclaw: { turnTainted: true } }, "untrusted")).toBeUndefined();
    for (const other of [null, undefined, "assistant", 7, [reply], { role: "user", content: "hi" }, { role: "toolResult", content: "x" }, { content: "x" }]) {
      expect(markedAsTainted(other, "untrusted")).toBeUndefined();
    }
  });

  it("replaces metadata that is no plain object, and a mark that is not exactly true", () => {
    for (const meta of ["x", 1, null, [{ turnTainted: true }]]) {
      expect(markedAsTainted({ ...reply, __openclaw: meta }, "external")?.__openclaw).toEqual({ turnTainted: true });
    }
    expect(markedAsTainted({ ...reply, __openclaw: { turnTainted: "yes" } }, "external")?.__openclaw).toEqual({ turnTainted: true });
  });

  it("for any message and taint: marked exactly when an unmarked assistant message meets a taint below trusted", () => {
    const message = fc.record(
      { role: fc.constantFrom("assistant", "user", "toolResult", 3), content: fc.anything(), __openclaw: fc.oneof(fc.anything(), fc.record({ turnTainted: fc.anything(), other: fc.string() })) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(message, fc.constantFrom(...TRUST_LEVELS, undefined), (m, taint) => {
        const before = JSON.stringify(m);
        const marked = markedAsTainted(m, taint);
        const meta = m.__openclaw;
        const alreadyMarked = typeof meta === "object" && meta !== null && !Array.isArray(meta) && (meta as Record<string, unknown>).turnTainted === true;
        const expected = m.role === "assistant" && taint !== undefined && taint !== "trusted" && !alreadyMarked;
        expect(marked !== undefined).toBe(expected);
        if (marked !== undefined) {
          expect((marked.__openclaw as Record<string, unknown>).turnTainted).toBe(true);
          expect(marked.content).toBe(m.content);
        }
        expect(JSON.stringify(m)).toBe(before);
      }),
    );
  });
});

describe("the mark that keeps an owner's message out of OpenClaw's memory as the owner's words", () => {
  const owners: Record<string, unknown> = { role: "user", content: "what does this invoice say?", __openclaw: { senderIsOwner: true, senderId: "42" } };

  it("gives a message the host marks as the owner's the provenance its memory reads as the system's, on a copy", () => {
    expect(markedAsNotOwners(owners)).toEqual({ ...owners, provenance: { kind: "internal_system", sourceTool: "provenant" } });
    expect(owners).not.toHaveProperty("provenance");
    // Each copy gets its own provenance object: the host may change what it writes.
    expect(markedAsNotOwners(owners)?.provenance).not.toBe(NOT_THE_OWNERS_WORDS);
  });

  it("leaves a message the host does not mark as the owner's, one it gave a provenance of its own, and any other shape alone", () => {
    for (const meta of [undefined, {}, { senderIsOwner: false }, { senderIsOwner: "true" }, "x", null]) {
      expect(markedAsNotOwners({ ...owners, __openclaw: meta })).toBeUndefined();
    }
    for (const kind of ["external_user", "inter_session", "internal_system"]) expect(markedAsNotOwners({ ...owners, provenance: { kind, sourceChannel: "voice" } })).toBeUndefined();
    // One the host cannot read, it would not keep: the mark replaces it.
    for (const provenance of [null, "internal_system", { kind: "owner" }, { sourceTool: "x" }, [{ kind: "external_user" }]]) {
      expect(markedAsNotOwners({ ...owners, provenance })?.provenance).toEqual(NOT_THE_OWNERS_WORDS);
    }
    for (const other of [null, undefined, "user", 7, [owners], { ...owners, role: "assistant" }, { ...owners, role: "toolResult" }]) {
      expect(markedAsNotOwners(other)).toBeUndefined();
    }
  });

  it("for any message: marked exactly when it is a user message the host marks as the owner's and gives no provenance of its own kinds", () => {
    const message = fc.record(
      { role: fc.constantFrom("assistant", "user", "toolResult", 3), content: fc.anything(), provenance: fc.oneof(fc.anything(), fc.record({ kind: fc.constantFrom("external_user", "inter_session", "internal_system", "other") })), __openclaw: fc.oneof(fc.anything(), fc.record({ senderIsOwner: fc.anything(), other: fc.string() })) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(message, (m) => {
        const before = JSON.stringify(m);
        const marked = markedAsNotOwners(m);
        const meta = m.__openclaw;
        const hostSaysOwner = typeof meta === "object" && meta !== null && !Array.isArray(meta) && (meta as Record<string, unknown>).senderIsOwner === true;
        const p = m.provenance;
        const hostProvenance = typeof p === "object" && p !== null && !Array.isArray(p) && ["external_user", "inter_session", "internal_system"].includes((p as Record<string, unknown>).kind as string);
        expect(marked !== undefined).toBe(m.role === "user" && hostSaysOwner && !hostProvenance);
        if (marked !== undefined) {
          expect(marked.provenance).toEqual(NOT_THE_OWNERS_WORDS);
          expect(marked.content).toBe(m.content);
          expect(marked.__openclaw).toBe(m.__openclaw);
        }
        expect(JSON.stringify(m)).toBe(before);
      }),
    );
  });
});
