import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineDiff } from "../../../src/service/console/line-diff.js";

const lines = fc.array(fc.constantFrom("a", "b", "c", "", "\u001b[2J", "<x>"), { maxLength: 30 });
const join = (ls: readonly string[]): string => (ls.length === 0 ? "" : `${ls.join("\n")}\n`);

describe("line diff", () => {
  it("the kept and removed lines rebuild the file now; the kept and added, the staged content", () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const diff = lineDiff(join(a), join(b));
        expect(diff.filter((d) => d.op !== "add").map((d) => d.text)).toEqual(a);
        expect(diff.filter((d) => d.op !== "del").map((d) => d.text)).toEqual(b);
        expect(diff.filter((d) => d.op !== "add").map((d) => d.line)).toEqual(a.map((_, i) => i + 1));
        expect(diff.filter((d) => d.op === "add").every((d) => b[d.line - 1] === d.text)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("is minimal for a one-line change and treats a missing file as empty", () => {
    expect(lineDiff("a\nb\nc\n", "a\nB\nc\n").map((d) => d.op)).toEqual(["same", "del", "add", "same"]);
    expect(lineDiff(null, "x\n")).toEqual([{ op: "add", text: "x", line: 1 }]);
    expect(lineDiff("same\n", "same\n").every((d) => d.op === "same")).toBe(true);
  });

  it("shows a rewrite too large to align as removed then added, still correct", () => {
    const a = Array.from({ length: 2500 }, (_, i) => `old ${i}`);
    const b = Array.from({ length: 2500 }, (_, i) => `new ${i}`);
    const diff = lineDiff(join(a), join(b));
    expect(diff.filter((d) => d.op === "del")).toHaveLength(2500);
    expect(diff.filter((d) => d.op === "add")).toHaveLength(2500);
  });
});
