import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TRUST_LEVELS, type TrustLevel } from "../../../src/core/trust-levels.js";
import { DEFAULT_SIZES, layoutGraph, type LayoutInput } from "../../../src/service/console/graph-layout.js";

const dag = fc.integer({ min: 1, max: 60 }).chain((n) =>
  fc.tuple(
    ...Array.from({ length: n }, (_, id) =>
      fc.record({
        trust: fc.constantFrom<TrustLevel>(...TRUST_LEVELS),
        parents: id === 0 ? fc.constant([] as number[]) : fc.uniqueArray(fc.integer({ min: 0, max: id - 1 }), { minLength: 1, maxLength: Math.min(3, id) }),
      }),
    ),
  ).map((nodes): LayoutInput[] => nodes.map((node, id) => ({ id, ...node }))),
);

describe("layered graph layout", () => {
  it("puts every node below all its parents, no two nodes in one place, the path from the source back to a root", () => {
    fc.assert(
      fc.property(dag, fc.nat(), (nodes, pick) => {
        const source = pick % nodes.length;
        const layout = layoutGraph(nodes, source);
        const places = new Set<string>();
        for (const p of layout.nodes) {
          for (const parent of nodes[p.id]?.parents ?? []) expect(p.layer).toBeGreaterThan(layout.nodes[parent]?.layer ?? Infinity);
          places.add(`${p.x},${p.y}`);
          expect(p.x + DEFAULT_SIZES.nodeWidth).toBeLessThanOrEqual(layout.width);
          expect(p.y + DEFAULT_SIZES.nodeHeight).toBeLessThanOrEqual(layout.height);
        }
        expect(places.size).toBe(nodes.length);
        const path = layout.nodes.filter((p) => p.onTaintPath).map((p) => p.id);
        expect(path).toContain(source);
        expect(path.some((id) => (nodes[id]?.parents.length ?? 0) === 0)).toBe(true);
        expect(layout.edges.filter((e) => e.onTaintPath)).toHaveLength(path.length - 1);
      }),
      { numRuns: 500 },
    );
  });

  it("follows the least trusted parent back from the source", () => {
    const nodes: LayoutInput[] = [
      { id: 0, trust: "trusted", parents: [] },
      { id: 1, trust: "trusted", parents: [0] },
      { id: 2, trust: "untrusted", parents: [0] },
      { id: 3, trust: "untrusted", parents: [1, 2] },
    ];
    const onPath = layoutGraph(nodes, 3).nodes.filter((p) => p.onTaintPath).map((p) => p.id);
    expect(onPath).toEqual([0, 2, 3]);
  });

  it("lays out a 1,000-node chain straight down, and no path without a source", () => {
    const nodes: LayoutInput[] = Array.from({ length: 1000 }, (_, id) => ({ id, trust: "trusted", parents: id === 0 ? [] : [id - 1] }));
    const layout = layoutGraph(nodes, null);
    expect(new Set(layout.nodes.map((p) => p.x)).size).toBe(1);
    expect(layout.nodes.at(-1)?.layer).toBe(999);
    expect(layout.nodes.some((p) => p.onTaintPath)).toBe(false);
  });
});
