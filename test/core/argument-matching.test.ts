import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractFields, extractRecords, isReference, isWeak, ownerStatements, scalarText, tokenize } from "../../src/core/argument-matching.js";
import { inLists } from "./nesting.js";

const J = (...tokens: string[]): string => tokens.join("\u0001");

describe("scalarText", () => {
  it("rule: a non-finite number renders as a character no text contains, so it never matches", () => {
    expect(scalarText(Number.NaN)).toBe("\u0000");
    expect(scalarText(Number.POSITIVE_INFINITY)).toBe("\u0000");
    expect(scalarText(-1.5)).toBe("-1.5");
    expect(scalarText(12n)).toBe("12");
  });
});

describe("isWeak", () => {
  it("rule: a value of several tokens is weak only with fewer than three letters and digits in all", () => {
    expect(isWeak(["a", "bc"])).toBe(false);
    expect(isWeak(["1", "23"])).toBe(false);
    expect(isWeak(["a", "b"])).toBe(true);
    expect(isWeak(tokenize("a + b"))).toBe(true);
  });

  it("rule: a single token counts as a number only when it is a number whole", () => {
    expect(isWeak(["abc12"])).toBe(false);
    expect(isWeak(["12abc"])).toBe(false);
    expect(isWeak(["-1234"])).toBe(true);
    expect(isWeak(["12.34"])).toBe(true);
    expect(isWeak(["12.345"])).toBe(false);
  });

  it("rule: punctuation inside a single token carries nothing", () => {
    expect(isWeak(tokenize("a+"))).toBe(true);
    expect(isWeak(["a-b"])).toBe(true);
    expect(isWeak(["a-bc"])).toBe(false);
  });
});

describe("isReference", () => {
  it("rule: a whole number of seven or more digits is a reference; a decimal is an amount", () => {
    expect(isReference("1234567")).toBe(true);
    expect(isReference("123456")).toBe(false);
    expect(isReference("12345678.5")).toBe(false);
  });

  it("rule: a host name without digits is a reference", () => {
    expect(isReference("example.com")).toBe(true);
    expect(isReference("news.example.org/today")).toBe(true);
  });

  it("rule: a digit run counts only when the token is digits whole (phone punctuation aside)", () => {
    expect(isReference("abc1234567")).toBe(false);
    expect(isReference("1234567abc")).toBe(false);
    expect(isReference("+1-555-123-4567")).toBe(true);
  });
});

describe("extractFields", () => {
  it("rule: JSON text is read as structure after surrounding whitespace", () => {
    expect(extractFields('  {"to": "Bob Smith"}\n')).toEqual([J("bob", "smith")]);
  });

  it("rule: only the output itself is read as JSON; a string inside a structure is one text field", () => {
    expect(extractFields('{"b":"x y"}')).toEqual([J("x", "y")]);
    expect(extractFields({ note: '{"b":"x y"}' })).toEqual([J("b", "x", "y")]);
    expect(extractFields([JSON.stringify({ a: "b c" })])).toEqual([J("a", "b", "c")]);
    expect(extractFields(JSON.stringify([JSON.stringify({ a: "b c" })]))).toEqual([J("a", "b", "c")]);
  });

  it("rule: a bare JSON scalar in text output stays text", () => {
    expect(extractFields("true")).toEqual(["true"]);
    expect(extractFields("null")).toEqual(["null"]);
  });

  it("rule: text that starts like JSON but is not JSON is still text", () => {
    expect(extractFields("{not json} hello")).toEqual([J("not", "json", "hello")]);
    expect(extractFields("[draft] Pay Bob")).toEqual([J("draft", "pay", "bob")]);
  });

  it("rule: number and bigint leaves are fields", () => {
    expect(extractFields({ n: 12345678901234567890n, m: 98.7 })).toEqual(["12345678901234567890", "98.7"]);
  });

  it("rule: leaves up to 64 levels deep are fields, deeper ones are not read", () => {
    expect(extractFields(inLists("deep value", 64))).toEqual([J("deep", "value")]);
    expect(extractFields(inLists("deep value", 65))).toEqual([]);
    expect(extractFields(inLists("deep value", 200))).toEqual([]);
    let obj: unknown = "deep value";
    for (let i = 0; i < 65; i++) obj = { k: obj };
    expect(extractFields(obj)).toEqual([]);
    expect(extractFields(JSON.stringify(inLists("deep value", 64)))).toEqual([]);
    expect(extractFields(JSON.stringify(inLists("deep value", 63)))).toEqual([J("deep", "value")]);
  });

  it("rule: a key-value line is recognised after its indentation, however deep", () => {
    const indent = " ".repeat(61);
    expect(extractFields(`${indent}first_name: Emma`)).toContain("emma");
    expect(extractFields(`header\n${indent}first_name: Emma`)).toContain("emma");
  });

  it("rule: every non-blank line is a field, whatever it says", () => {
    for (const line of ["Stryker was here!", "hello world", "- item one"]) {
      const fields = extractFields(`first line\n${line}\n`);
      expect(fields).toContain(J(...tokenize(line)));
    }
  });

  it("rule: text with no token yields no field (never an empty one)", () => {
    expect(extractFields("   ")).toEqual([]);
    expect(extractFields("...\n\n  \n")).toEqual([]);
    expect(extractFields("a\n\n  \nb")).toEqual([J("a", "b"), "a", "b"]);
  });
});

describe("ownerStatements", () => {
  it("rule: a message with no word has no statement", () => {
    expect(ownerStatements("")).toEqual([]);
    expect(ownerStatements("...\n\n!")).toEqual([]);
    expect(ownerStatements("Hi.\n\nPay Bob.")).toEqual([
      { tokens: ["hi"], request: ["hi"] },
      { tokens: ["pay", "bob"], request: ["pay", "bob"] },
    ]);
  });

  it("rule: a quoted span is cut out as a separator: the words either side stay apart", () => {
    expect(ownerStatements('reply:"Thanks".send it')).toEqual([{ tokens: ["reply", "thanks", "send", "it"], request: ["reply", "send", "it"] }]);
  });
});

describe("extractRecords", () => {
  it("rule: text is a list of records only when every line at the margin starts `- `", () => {
    expect(extractRecords("Results:\n- a x\n- b y")).toEqual([[J("results", "a", "x", "b", "y"), "results", J("a", "x"), J("b", "y")]]);
    expect(extractRecords("- a x\n  note\n- b y")).toEqual([[J("a", "x", "note"), J("a", "x"), "note"], [J("b", "y")]]);
  });

  it("rule: a JSON list is read as records after surrounding whitespace", () => {
    expect(extractRecords('  [{"a":"x y"},{"a":"z w"}]\n')).toEqual([[J("x", "y")], [J("z", "w")]]);
  });
});

describe("tokenize against a reference", () => {
  it("rule: plain words and integers separated by spaces and punctuation are the tokens, lower-cased", () => {
    const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,8}$/u);
    const sep = fc.constantFrom(" ", "\t", "\n", ", ", "; ", " (", ") ", '"', "'", " | ", "[", "]");
    fc.assert(
      fc.property(fc.array(fc.tuple(word, sep), { minLength: 1, maxLength: 20 }), (parts) => {
        const text = parts.map(([w, s]) => w + s).join("");
        expect(tokenize(text)).toEqual(parts.map(([w]) => w.toLowerCase()));
      }),
    );
  });

  it("rule: a number written with thousands separators, a currency sign or trailing zeros is the number", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), fc.integer({ min: 0, max: 99 }), fc.constantFrom("", "$", "\u20ac", "\u00a3"), (whole, cents, sign) => {
        const fraction = cents === 0 ? "" : `.${String(cents).padStart(2, "0")}`.replace(/0+$/u, "");
        const written = `${sign}${whole.toLocaleString("en-US")}.${String(cents).padStart(2, "0")}`;
        expect(tokenize(`pay ${written} now`)).toEqual(["pay", `${whole}${fraction}`, "now"]);
      }),
    );
  });
});
