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

describe("the provenance DAG's invariants", () => {
  it("a node cannot name itself as its parent", () => {
    const g = new ProvenanceGraph("t1");
    g.add("system_prompt", "sp", "trusted");
    expect(() => g.add("tool", "x", "trusted", { parents: [1] })).toThrow(
      new RangeError("turn t1: node 1 names parent 1, which does not precede it"),
    );
    expect(g.size).toBe(1);
  });

  it("the first node sets the high-water mark's source even when it is trusted", () => {
    const g = new ProvenanceGraph("t1");
    const first = g.add("system_prompt", "sp", "trusted");
    expect(g.taintSource).toBe(first);
    g.add("history", "h", "trusted");
    expect(g.taintSource).toBe(first);
  });

  it("an owner reset is a node after the last one, or the first node of an empty graph", () => {
    const empty = new ProvenanceGraph("t0");
    expect(empty.reset("shared", "owner reset").parents).toEqual([]);
    const g = new ProvenanceGraph("t1");
    g.add("system_prompt", "sp", "trusted");
    g.add("tool", "web", "untrusted");
    const reset = g.reset("trusted", "owner reset");
    expect(reset).toEqual({ id: 2, kind: "reset", label: "owner reset", trust: "trusted", tool: null, parents: [1] });
    expect(g.maxTaint).toBe("trusted");
    expect(g.taintSource).toBe(reset);
  });

  it("a sealed graph takes no node and no reset, with an error naming the turn", () => {
    const g = new ProvenanceGraph("t9");
    g.add("system_prompt", "sp", "trusted");
    g.seal();
    for (const change of [() => g.add("tool", "x", "untrusted"), () => g.reset("trusted", "owner reset")]) {
      expect(change).toThrow(SealedGraphError);
      expect(change).toThrow("turn t9: the provenance graph is sealed; no node can be added");
    }
    expect(new SealedGraphError("t9").name).toBe("SealedGraphError");
    expect(g.size).toBe(1);
    expect(g.maxTaint).toBe("trusted");
  });
});
