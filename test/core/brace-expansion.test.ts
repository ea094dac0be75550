import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { braceExpansions, MAX_BRACE_WORD_LENGTH, MAX_BRACE_WORDS } from "../../src/core/brace-expansion.js";

/** A test that runs bash for each of its words: many processes, slow on a loaded machine. */
const BASH_ORACLE_TIMEOUT = 120_000;

/** What bash itself makes of the word (empty words dropped, as bash drops them). */
function bash(word: string): string[] {
  const out = execFileSync("bash", ["-c", `printf '%s\\n' ${word}`], { encoding: "utf8" });
  return out.split("\n").slice(0, -1).filter((w) => w !== "");
}

describe("brace expansion", () => {
  it("lists, sequences, nesting and zero padding, as bash makes them; nothing to expand is []", () => {
    expect(braceExpansions("notes/{page,copy}.md")).toEqual(["notes/page.md", "notes/copy.md"]);
    expect(braceExpansions("x{a,b}y{1..3}")).toEqual(["xay1", "xay2", "xay3", "xby1", "xby2", "xby3"]);
    expect(braceExpansions("{a,b{1..2}}x")).toEqual(["ax", "b1x", "b2x"]);
    expect(braceExpansions("{01..03}")).toEqual(["01", "02", "03"]);
    expect(braceExpansions("{-01..1}")).toEqual(["-01", "000", "001"]);
    expect(braceExpansions("{3..1}")).toEqual(["3", "2", "1"]);
    expect(braceExpansions("{a..e..2}")).toEqual(["a", "c", "e"]);
    expect(braceExpansions("{1..3..0}")).toEqual(["1", "2", "3"]);
    for (const word of ["a.md", "{a}", "{}", "{a,b", "a,b}", "{a..}", "${HOME}"]) expect(braceExpansions(word), word).toEqual([]);
    // A parameter's braces are not a list; a list after one is.
    expect(braceExpansions("${x}{a,b}")).toEqual(["${x}a", "${x}b"]);
  });

  it("words as bash makes them: signs, padding at either end, steps of any width, `{}` inside and beside lists, and what is no sequence", () => {
    const exact = [
      "{+1..3}",
      "{1..+3}",
      "{1..3..+2}",
      "{a..c..+1}",
      "{01..3}",
      "{1..03}",
      "{-05..-3}",
      "{-3..02}",
      "{99..101..2}",
      "{1..20..10}",
      "{a..z..10}",
      "{0000000000000000000000000000000000001..3}",
      "{x1..3}",
      "{1..3x}",
      "{xa..c}",
      "{a..cx}",
      "{a,{},b}",
      "x{a{},b}",
      "{a{}b,c}",
      "{{},a}",
      "{a,b}{}",
      "{}{a,b}",
      "{}a,b}",
      "{},a}",
      "x{},a}",
      "x{}{},+}",
      "{a}b,c}",
      "{a,b}c}",
      "{a,b{c,{d,e}}}",
      "{a{b,c},d{e,f}}",
      "{a,b}{c{},d}",
      "{1..2}{}",
      // An item's text and what follows the list make no list together.
      "x{,{}}y,}y",
      "{,{}}{}x,y}",
      "a{x,y}{}b,c}",
    ];
    for (const word of exact) {
      const ours = braceExpansions(word);
      expect(ours, word).not.toBeNull();
      expect((ours!.length === 0 ? [word] : ours!).filter((w) => w !== ""), word).toEqual(bash(word));
    }
    // Braces around what is no list: bash keeps them; the reading without them is ours as well.
    expect(braceExpansions("{x{a,b}}")).toEqual(["{xa}", "{xb}", "xa", "xb"]);
    expect(bash("{x{a,b}}")).toEqual(["{xa}", "{xb}"]);
    expect(bash("{x{}{a,b}}")).toEqual(["{x{}a}", "{x{}b}"]);
    expect(braceExpansions("{x{}{a,b}}")).toEqual(expect.arrayContaining(["{x{}a}", "{x{}b}", "x{}a", "x{}b"]));
  }, BASH_ORACLE_TIMEOUT);

  it(`past ${MAX_BRACE_WORDS} words it gives up: null`, () => {
    expect(braceExpansions(`{1..${MAX_BRACE_WORDS}}`)).toHaveLength(MAX_BRACE_WORDS);
    expect(braceExpansions(`{1..${MAX_BRACE_WORDS + 1}}`)).toBeNull();
    expect(braceExpansions("{1..9999999999}")).toBeNull();
    expect(braceExpansions("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")).toHaveLength(64);
    expect(braceExpansions("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")).toBeNull();
    expect(braceExpansions(`{${Array.from({ length: MAX_BRACE_WORDS + 1 }, (_, i) => `w${i}`).join(",")}}`)).toBeNull();
    // A word past MAX_BRACE_WORD_LENGTH is not looked into: with a brace it is known only at run time.
    expect(braceExpansions(`{a,b}${"x".repeat(MAX_BRACE_WORD_LENGTH)}`)).toBeNull();
    expect(braceExpansions("x".repeat(MAX_BRACE_WORD_LENGTH + 1))).toEqual([]);
    expect(braceExpansions(`{a,b}${"x".repeat(MAX_BRACE_WORD_LENGTH - 5)}`)).toHaveLength(2);
  });

  it("a long word of braces (a JSON body, nesting that is no list) is given up on, not expanded for ever", () => {
    const json = `{${Array.from({ length: 400 }, (_, i) => `k${i}:{v:[${i}]}`).join(",")}}`;
    expect(braceExpansions(json)).toBeNull();
    // Each level of braces that is no list doubles the readings: the work is bounded.
    expect(braceExpansions("{".repeat(2000) + "a" + "}".repeat(2000))).toBeNull();
    expect(braceExpansions("{{a}}")).toEqual(["{{a}}", "{a}"]);
  });

  it("braces around what is no list stay, and the lists inside expand; the reading without them is added, as bash sometimes drops them", () => {
    expect(braceExpansions("{a{b,c}}")).toEqual(["{ab}", "{ac}", "ab", "ac"]);
    expect(bash("{a{b,c}}")).toEqual(["{ab}", "{ac}"]);
    expect(braceExpansions("{..{,}y}a")).toContain("..ya");
    expect(bash("{..{,}y}a")).toEqual(["..ya", "..ya"]);
  });

  it("property: bash is the oracle: every word it makes is the word or one of ours; for lists and sequences alone, exactly ours", () => {
    const oddWord = fc.array(fc.constantFrom("a", "b", "1", "2", "0", ",", ".", "..", "-", "+", "{", "}", "{}", "x{", "}y"), { minLength: 1, maxLength: 12 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(oddWord, (w) => {
        const ours = braceExpansions(w);
        fc.pre(ours !== null);
        for (const made of bash(w)) expect([w, ...ours]).toContain(made);
      }),
      { numRuns: 150 },
    );
    const item = fc.constantFrom("a", "b", "x1", "", "1..3", "a..c", "05..07");
    const list = fc.array(item, { minLength: 1, maxLength: 3 }).map((items) => `{${items.join(",")}}`);
    const wellFormed = fc.array(fc.oneof(list, fc.constantFrom("p", "q/", ".md")), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(wellFormed, (w) => {
        const ours = braceExpansions(w);
        fc.pre(ours !== null);
        expect((ours.length === 0 ? [w] : ours).filter((x) => x !== "")).toEqual(bash(w));
      }),
      { numRuns: 150 },
    );
  }, BASH_ORACLE_TIMEOUT);
});
