import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJSON } from "../../src/ledger/canonical-json.js";
import { isCanonicalJSON } from "../../src/ledger/canonical-json-check.js";
import { nextEntry } from "../../src/ledger/chain-entry.js";
import { encodeEntryLine, parseEntryLine, readCanonicalLine } from "../../src/ledger/entry-line.js";

/** The definition the one-pass check must agree with. */
function reference(text: string): boolean {
  try {
    return canonicalJSON(JSON.parse(text)) === text;
  } catch {
    return false;
  }
}

const CORPUS = join(import.meta.dirname, "../../../shared/corpora/jcs");

/** A canonical text with one character inserted, removed or replaced: near misses of every kind. */
const mutated = fc
  .tuple(fc.jsonValue(), fc.nat(), fc.constantFrom("insert", "remove", "replace"), fc.constantFrom(..." \t\n\"\\/{}[],:0123456789.eE+-tfnu\u0000\u001f\u007f\u00e9\ud800\udc00abxA"))
  .map(([value, at, op, ch]) => {
    const text = canonicalJSON(value);
    const i = text.length === 0 ? 0 : at % text.length;
    if (op === "insert") return text.slice(0, i) + ch + text.slice(i);
    if (op === "remove") return text.slice(0, i) + text.slice(i + 1);
    return text.slice(0, i) + ch + text.slice(i + 1);
  });

describe("isCanonicalJSON agrees with canonicalJSON(JSON.parse(text)) === text", () => {
  it("on every canonical serialization", () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => isCanonicalJSON(canonicalJSON(v))), { numRuns: 3_000 });
  });

  it("on near misses of canonical texts", () => {
    fc.assert(
      fc.property(mutated, (text) => {
        expect(isCanonicalJSON(text)).toBe(reference(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it("on arbitrary strings and on JSON written by JSON.stringify with and without indentation", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.json(), fc.jsonValue().map((v) => JSON.stringify(v, null, 1))), (text) => {
        expect(isCanonicalJSON(text)).toBe(reference(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it("on the RFC 8785 corpus: outputs are canonical, the inputs are not", () => {
    for (const f of readdirSync(join(CORPUS, "output"))) {
      expect(isCanonicalJSON(readFileSync(join(CORPUS, "output", f), "utf8"))).toBe(true);
      expect(isCanonicalJSON(readFileSync(join(CORPUS, "input", f), "utf8"))).toBe(false);
    }
  });

  it.each([
    "-0", "1.0", "1E2", "1e2", "01", "+1", ".5", "1e400", "NaN",
    '"\\u001F"', '"\\u000a"', '"\\/"', '"\\u0041"', '"\\ud800"', '"\ud800"', '"\udc00x"', '"\u0000"', '"\\x"', '"abc',
    '{"b":1,"a":2}', '{"a":1,"a":1}', '{"a":1,}', "[1,]", "[1 ]", " 1", "1 ", "", "nul", "tru", "{", "[",
    `${"[".repeat(513)}${"]".repeat(513)}`,
    "00", "-01", "-", "12345678901234567", "1.50", "1e05", "123456789012345", "1234567890123456",
    '{"a":1,"\\n":2}', '{"\\n":1,"a":2}', '{"ab":1,"a":2}', '{"a":1,"ab":2}', '{"a\\"":1,"a":2}', '{"a":1,"a\\"":2}',
    '{"\ud83d\ude02":1,"\uffff":2}', '{"\uffff":1,"\ud83d\ude02":2}', '{"\u00e9":1,"\u00e9":2}',
  ])("hostile %s", (text) => {
    expect(isCanonicalJSON(text)).toBe(reference(text));
  });

  it.each(['"\u007f"', '"\\u001f"', '"\\"\\\\\\b\\f\\n\\r\\t"', "5e-324", "1e+21", '{"":0,"\\n":2,"a":1}', `${"[".repeat(512)}${"]".repeat(512)}`])(
    "accepts canonical %s",
    (text) => {
      expect(isCanonicalJSON(text)).toBe(true);
    },
  );
});

describe("readCanonicalLine, the verifier's fast reader", () => {
  const entryArb = fc
    .tuple(fc.dictionary(fc.string(), fc.jsonValue()), fc.constantFrom("CLAIM", "META", "VERIFY") as fc.Arbitrary<"CLAIM" | "META" | "VERIFY">, fc.nat(1000))
    .map(([data, type, n]) => {
      let e = nextEntry(undefined, "GENESIS", { n });
      e = nextEntry(e, type, data);
      return e;
    });

  it("reads every line the ledger writes, exactly as the full parser does", () => {
    fc.assert(
      fc.property(entryArb, (entry) => {
        const line = encodeEntryLine(entry);
        const slow = parseEntryLine(line);
        if (!slow.ok) throw new Error(slow.reason);
        expect(readCanonicalLine(line)).toEqual({ header: { seq: entry.seq, type: entry.type, prevHash: entry.prevHash, hash: entry.hash }, canonicalData: slow.canonicalData });
      }),
      { numRuns: 2_000 },
    );
  });

  it("accepts no line the full parser rejects, but for the form of hash fields it leaves to the verifier", () => {
    const mutatedLine = fc.tuple(entryArb, fc.nat(), fc.constantFrom("insert", "remove", "replace"), fc.constantFrom(...' "\\{}[],:01.9eEaG\u00e9\ud800x')).map(([entry, at, op, ch]) => {
      const text = encodeEntryLine(entry);
      const i = at % text.length;
      if (op === "insert") return text.slice(0, i) + ch + text.slice(i);
      if (op === "remove") return text.slice(0, i) + text.slice(i + 1);
      return text.slice(0, i) + ch + text.slice(i + 1);
    });
    fc.assert(
      fc.property(mutatedLine, (line) => {
        const fast = readCanonicalLine(line);
        const slow = parseEntryLine(line);
        if (fast === undefined) return;
        if (slow.ok) {
          expect(fast).toEqual({ header: { seq: slow.entry.seq, type: slow.entry.type, prevHash: slow.entry.prevHash, hash: slow.entry.hash }, canonicalData: slow.canonicalData });
        } else {
          const hex = /^[0-9a-f]{64}$/;
          expect(hex.test(fast.header.hash) && hex.test(fast.header.prevHash)).toBe(false);
        }
      }),
      { numRuns: 20_000 },
    );
  });
});
