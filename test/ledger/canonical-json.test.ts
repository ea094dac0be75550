import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { CanonicalJSONError, canonicalJSON } from "../../src/ledger/canonical-json.js";

// The package's typings declare an ES default export, but it is CommonJS exporting the function itself.
const canonicalize = createRequire(import.meta.url)("canonicalize") as (value: unknown) => string | undefined;

const CORPUS = join(import.meta.dirname, "../../../shared/corpora/jcs");

describe("canonicalJSON against the RFC 8785 corpus", () => {
  const files = readdirSync(join(CORPUS, "input")).filter((f) => f.endsWith(".json"));

  it("has the corpus files", () => {
    expect(files.length).toBeGreaterThanOrEqual(6);
  });

  for (const file of files) {
    it(`reproduces output/${file} byte for byte`, () => {
      const input: unknown = JSON.parse(readFileSync(join(CORPUS, "input", file), "utf8"));
      const expected = readFileSync(join(CORPUS, "output", file));
      expect(Buffer.from(canonicalJSON(input), "utf8").equals(expected)).toBe(true);
    });
  }

  it("serializes all 10,000 ES6 number lines", () => {
    const lines = readFileSync(join(CORPUS, "es6-numbers-10000.txt"), "utf8").split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(10_000);
    const bits = Buffer.alloc(8);
    let mismatches = 0;
    for (const line of lines) {
      const [hex, expected] = line.split(",");
      bits.writeBigUInt64BE(BigInt(`0x${hex ?? ""}`));
      if (canonicalJSON(bits.readDoubleBE(0)) !== expected) mismatches++;
    }
    expect(mismatches).toBe(0);
  });
});

describe("canonicalJSON rejects what JCS forbids, with the place named", () => {
  it.each([
    [Number.NaN, "NaN is not a JSON number at $"],
    [Number.POSITIVE_INFINITY, "Infinity is not a JSON number at $"],
    [{ a: [1, Number.NEGATIVE_INFINITY] }, "-Infinity is not a JSON number at $.a[1]"],
    ["x\ud800", "lone surrogate in string (not valid Unicode) at $"],
    ["\udc00y", "lone surrogate in string (not valid Unicode) at $"],
    [{ ["k\udbff"]: 1 }, "lone surrogate in string (not valid Unicode) at $.k\udbff"],
    [[undefined], "undefined is not a JSON value at $[0]"],
    [10n, "bigint is not a JSON value at $"],
    [{ f: () => 1 }, "function is not a JSON value at $.f"],
    [new Map(), "a Map is not a plain JSON object at $"],
  ])("%s", (value, message) => {
    expect(() => canonicalJSON(value)).toThrow(CanonicalJSONError);
    expect(() => canonicalJSON(value)).toThrow(`canonical JSON: ${message}`);
  });

  it("reports a cycle instead of overflowing the stack", () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => canonicalJSON(loop)).toThrow(/nesting deeper than 512/);
  });

  it("accepts a well-formed surrogate pair, -0 and toJSON values", () => {
    expect(canonicalJSON({ s: "\ud83d\ude02", z: -0, d: new Date(0) })).toBe(
      '{"d":"1970-01-01T00:00:00.000Z","s":"😂","z":0}',
    );
  });
});

describe("canonicalJSON properties", () => {
  it("agrees with the canonicalize library on any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJSON(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it("is stable under parse and reserialize, and independent of key order", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: "grapheme" }), fc.jsonValue()), (record) => {
        const once = canonicalJSON(record);
        expect(canonicalJSON(JSON.parse(once))).toBe(once);
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJSON(reversed)).toBe(once);
      }),
      { numRuns: 1_000 },
    );
  });

  it("never emits a string that fails to parse, for any string of UTF-16 units", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        let out: string;
        try {
          out = canonicalJSON(s);
        } catch (error) {
          expect(error).toBeInstanceOf(CanonicalJSONError);
          return;
        }
        expect(JSON.parse(out)).toBe(s);
      }),
      { numRuns: 2_000 },
    );
  });
});
