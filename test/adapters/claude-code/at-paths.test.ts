import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { atPaths } from "../../../src/adapters/claude-code/at-paths.js";

describe("atPaths: what an @ may name in text Claude Code expands", () => {
  it("each spelling: quoted, escaped spaces, line anchors, trailing punctuation, overlapping", () => {
    expect(atPaths("no at sign here")).toEqual([]);
    expect(atPaths('see @"my notes.md", @a\\ b.md and (@c.md#L1-3).').sort()).toEqual(["a b.md", "c.md", "c.md#L1-3", "c.md#L1-3).", "my", "my notes.md"].sort());
    expect(atPaths("@(@secret.md")).toEqual(["(@secret.md", "secret.md"]);
    expect(atPaths("mail me at a@b.md")).toEqual([]);
    expect(atPaths('@"at the start.md"')).toContain("at the start.md");
    // Only a leading quote is a quote: one inside is part of the name.
    expect(atPaths('@a"b.md')).toEqual(['a"b.md']);
    // A line anchor after punctuation: the name with it and without.
    expect(atPaths("@a.md).#x").sort()).toEqual(["a.md", "a.md).", "a.md).#x"].sort());
    // Nothing left after the punctuation is no name.
    expect(atPaths("@. and @#frag")).toEqual([".", "#frag"]);
  });

  it("hostile text: never throws, each spelling is a piece of the text, and an @path after a space is found", () => {
    const pathChar = fc.constantFrom(..."abcxyz019-_/.~#(@");
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.array(pathChar, { minLength: 1, maxLength: 20 }).map((cs) => cs.join("")), fc.constantFrom(" ", "\n", "\t", "(", "'"), (noise, path, before) => {
        const text = `${noise}${before}@${path}`;
        const found = atPaths(text);
        for (const p of found) expect(text.replaceAll("\\ ", " ")).toContain(p);
        expect(found).toContain(path);
      }),
    );
  });
});
