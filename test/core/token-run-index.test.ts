import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TokenRunIndex } from "../../src/core/token-run-index.js";

/**
 * What the index holds for removed entries. Compaction changes no lookup result, only memory: it is
 * the rule that makes forgetting old sources (ValueProvenance's token budget) free their memory, so
 * these tests read the index's private occurrence lists to see it.
 */
function occurrences(index: TokenRunIndex): Map<string, number[]> {
  return (index as unknown as { occurrences: Map<string, number[]> }).occurrences;
}

/** The reference: scan every live entry for the run. */
function naiveFind(entries: Map<number, string[]>, run: string[]): number[] {
  if (run.length === 0) return [];
  const out: number[] = [];
  for (const [id, tokens] of [...entries].sort((a, b) => a[0] - b[0])) {
    for (let s = 0; s + run.length <= tokens.length; s++) {
      if (run.every((t, i) => tokens[s + i] === t)) {
        out.push(id);
        break;
      }
    }
  }
  return out;
}

describe("TokenRunIndex", () => {
  it("rule: ids outside 0..2^27 and repeated ids are refused, with the id in the message", () => {
    const index = new TokenRunIndex();
    expect(() => index.add(-1, ["a"])).toThrow(new RangeError("entry id -1 out of range"));
    expect(() => index.add(2 ** 27, ["a"])).toThrow(new RangeError(`entry id ${2 ** 27} out of range`));
    expect(() => index.add(1.5, ["a"])).toThrow(new RangeError("entry id 1.5 out of range"));
    index.add(2 ** 27 - 1, ["a"]);
    expect(index.find(["a"])).toEqual([2 ** 27 - 1]);
    index.add(3, ["a"]);
    expect(() => index.add(3, ["b"])).toThrow(new RangeError("entry id 3 already indexed"));
  });

  it("rule: size counts live tokens: a removed entry's tokens stop counting", () => {
    const index = new TokenRunIndex();
    index.add(0, ["a", "b", "c"]);
    index.add(1, ["d"]);
    expect(index.size).toBe(4);
    index.remove(0);
    expect(index.size).toBe(1);
    index.remove(0);
    expect(index.size).toBe(1);
    index.remove(1);
    expect(index.size).toBe(0);
    expect(index.find(["a"])).toEqual([]);
  });

  it(
    "rule: an entry's tokens beyond 2^26 - 1 are not indexed",
    () => {
      const index = new TokenRunIndex();
      // A sparse array: its length is past the cap without allocating every token.
      const tokens: string[] = [];
      tokens.length = 2 ** 26 + 5;
      tokens[0] = "head";
      tokens[2 ** 26 + 1] = "tail";
      index.add(0, tokens);
      expect(index.size).toBe(2 ** 26 - 1);
      expect(index.find(["head"])).toEqual([0]);
      expect(index.find(["tail"])).toEqual([]);
    },
    120_000,
  );

  it("rule: removed entries' positions are dropped once removed tokens outnumber live ones, not before", () => {
    const index = new TokenRunIndex();
    index.add(0, ["old", "x"]);
    index.add(1, ["new", "x"]);
    index.remove(0);
    // 2 dead, 2 live: not yet.
    expect(occurrences(index).get("old")).toEqual([0]);
    expect(occurrences(index).get("x")).toHaveLength(2);
    index.add(2, ["y"]);
    index.remove(1);
    // 4 dead, 1 live: compacted. Tokens no live entry holds are gone entirely.
    expect([...occurrences(index).keys()]).toEqual(["y"]);
    expect(index.find(["x"])).toEqual([]);
    index.remove(2);
    expect(occurrences(index).size).toBe(0);
    // The dead count restarts after compacting: one more small removal does not compact again.
    index.add(3, ["a", "b", "c"]);
    index.add(4, ["d"]);
    index.remove(4);
    expect(occurrences(index).get("d")).toEqual([4 * 2 ** 26]);
  });

  it("rule: find returns, ascending, exactly the live entries holding the run contiguously", () => {
    const token = fc.constantFrom("a", "b", "c", "d");
    const op = fc.oneof(
      fc.record({ kind: fc.constant("add" as const), tokens: fc.array(token, { maxLength: 8 }) }),
      fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.array(fc.array(token, { minLength: 0, maxLength: 3 }), { minLength: 1, maxLength: 10 }), (ops, runs) => {
        const index = new TokenRunIndex();
        const live = new Map<number, string[]>();
        let next = 0;
        for (const o of ops) {
          if (o.kind === "add") {
            index.add(next, o.tokens);
            live.set(next, o.tokens);
            next++;
          } else if (next > 0) {
            const id = o.pick % next;
            index.remove(id);
            live.delete(id);
          }
          for (const run of runs) expect(index.find(run)).toEqual(naiveFind(live, run));
        }
        expect(index.size).toBe([...live.values()].reduce((n, t) => n + t.length, 0));
      }),
    );
  });
});
