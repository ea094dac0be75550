import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ProvenanceGraph, SealedGraphError } from "../../src/core/provenance-graph.js";
import { TRUST_LEVELS, trustRank } from "../../src/core/trust-levels.js";

describe("Per-Turn Provenance DAG", () => {
  it("builds the seed's example and tracks the node that set the high-water mark", () => {
    const g = new ProvenanceGraph("s#1");
    g.add("system_prompt", "system prompt", "trusted");
    g.add("history", "owner DM", "trusted");
    g.add("llm_call", "model call 1", "trusted");
    const fetch = g.add("tool", "web_fetch response", "untrusted", { tool: "web_fetch" });
    g.add("llm_call", "model call 2", g.maxTaint);
    g.add("tool", "read response", "trusted", { tool: "read" });
    expect(g.maxTaint).toBe("untrusted");
    expect(g.taintSource).toBe(fetch);
    expect(g.node(4)?.parents).toEqual([3]);
    g.seal();
    expect(() => g.add("output", "late", "trusted")).toThrow(SealedGraphError);
    expect(JSON.parse(JSON.stringify(g))).toMatchObject({ turnId: "s#1", maxTaint: "untrusted", taintSource: 3, sealed: true });
  });

  it("supports branching through explicit parents, and rejects a parent that does not precede the node", () => {
    const g = new ProvenanceGraph("t");
    g.add("system_prompt", "sp", "trusted");
    g.add("llm_call", "a", "trusted");
    g.add("llm_call", "b", "trusted", { parents: [0] });
    expect(g.node(2)?.parents).toEqual([0]);
    expect(() => g.add("tool", "bad", "trusted", { parents: [5] })).toThrow(RangeError);
    expect(() => g.add("tool", "bad", "trusted", { parents: [-1] })).toThrow(RangeError);
  });

  it("property: taint never decreases within a turn except through an explicit owner reset", () => {
    const level = fc.constantFrom(...TRUST_LEVELS);
    const op = fc.oneof(fc.record({ reset: fc.constant(false), level }), fc.record({ reset: fc.constant(true), level }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const g = new ProvenanceGraph("t");
        let floor = 0;
        for (const o of ops) {
          if (o.reset) {
            g.reset(o.level, "owner reset");
            floor = trustRank(o.level);
          } else {
            const before = trustRank(g.maxTaint);
            g.add("tool", "x", o.level);
            expect(trustRank(g.maxTaint)).toBeGreaterThanOrEqual(before);
            floor = Math.max(floor, trustRank(o.level));
          }
          expect(trustRank(g.maxTaint)).toBe(floor);
        }
      }),
    );
  });
});
