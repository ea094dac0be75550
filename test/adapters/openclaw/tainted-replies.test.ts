import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markedAsTainted } from "../../../src/adapters/openclaw/tainted-replies.js";
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
