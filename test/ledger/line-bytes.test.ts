import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { isAsciiCanonicalObject } from "../../src/ledger/canonical-bytes-check.js";
import { canonicalJSON } from "../../src/ledger/canonical-json.js";
import { isCanonicalJSON } from "../../src/ledger/canonical-json-check.js";
import { type ChainEntry, type EntryData, type EntryType, nextEntry } from "../../src/ledger/chain-entry.js";
import { scanChainFile } from "../../src/ledger/chain-file.js";
import { type ChainFault, ChainVerifier } from "../../src/ledger/chain-verifier.js";
import { encodeEntryLine, parseEntryLine, readCanonicalLine } from "../../src/ledger/entry-line.js";
import { LineLayout, readLineAt } from "../../src/ledger/line-layout.js";

const ASCII = /^[\x20-\x7f]*$/;

/** Whether some key, at any depth, is written with an escape in canonical JSON. */
function hasEscapedKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasEscapedKey);
  if (typeof value !== "object" || value === null) return false;
  return Object.entries(value).some(([k, v]) => /[\x00-\x1f"\\]/.test(k) || hasEscapedKey(v));
}

/** The bytes of `text` with noise on both sides, as a line sits among others in a chunk. */
function embedded(text: string, before: string, after: string): { b: Buffer; start: number; end: number } {
  const head = Buffer.from(before, "utf8");
  const body = Buffer.from(text, "utf8");
  return { b: Buffer.concat([head, body, Buffer.from(after, "utf8")]), start: head.length, end: head.length + body.length };
}

const noise = fc.string({ unit: fc.constantFrom(..."{}[]\",:\\0a\n\u00e9") , maxLength: 8 });

/** Canonical texts with one character inserted, removed or replaced. */
function mutate(text: string, at: number, op: "insert" | "remove" | "replace", ch: string): string {
  const i = text.length === 0 ? 0 : at % text.length;
  if (op === "insert") return text.slice(0, i) + ch + text.slice(i);
  if (op === "remove") return text.slice(0, i) + text.slice(i + 1);
  return text.slice(0, i) + ch + text.slice(i + 1);
}
const ops = fc.constantFrom("insert", "remove", "replace") as fc.Arbitrary<"insert" | "remove" | "replace">;
const chars = fc.constantFrom(..." \t\n\"\\/{}[],:0123456789.eE+-tfnu\u0000\u001f\u007f\u00e9\ud800abxA");

describe("isAsciiCanonicalObject, the byte-level form check", () => {
  it("vouches for every canonical ASCII object without escaped keys, and for nothing that is not canonical", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), noise, noise, (value, before, after) => {
        const text = canonicalJSON(value);
        const { b, start, end } = embedded(text, before, after);
        expect(isAsciiCanonicalObject(b, start, end)).toBe(ASCII.test(text) && !hasEscapedKey(value));
      }),
      { numRuns: 3_000 },
    );
  });

  it("on near misses, vouches only where the text check agrees", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(), ops, chars, noise, (value, at, op, ch, after) => {
        const text = mutate(canonicalJSON(value), at, op, ch);
        const { b, start, end } = embedded(text, "", after);
        if (isAsciiCanonicalObject(b, start, end)) expect(isCanonicalJSON(text) && text.startsWith("{")).toBe(true);
        else if (ASCII.test(text) && text.startsWith("{") && isCanonicalJSON(text)) expect(hasEscapedKey(JSON.parse(text))).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    '{"a":-0}', '{"a":1.0}', '{"a":1E2}', '{"a":01}', '{"a":1e400}', '{"a":"\\u001F"}', '{"a":"\\u000a"}', '{"a":"\\/"}', '{"a":"\\u0041"}',
    '{"b":1,"a":2}', '{"a":1,"a":1}', '{"a":1,}', '{"a":[1,]}', '{"a":tru}', '{"a":nul}', '{"a":fals}', '{"a":"x}', '{"a"', "{",
    `{"a":${"[".repeat(512)}${"]".repeat(512)}}`, '{"a":12345678901234567}', '{"a":1.50}', '{"a":"\t"}', '{"\u00e9":1}', '{"\\n":1}',
  ])("refuses %s", (text) => {
    const { b, start, end } = embedded(text, "", "");
    expect(isAsciiCanonicalObject(b, start, end)).toBe(false);
  });

  it.each(['{"a":"\u007f"}', '{"a":"\\u001f"}', '{"a":"\\"\\\\\\b\\f\\n\\r\\t"}', '{"a":5e-324}', '{"a":1e+21}', '{"a":-1.5,"b":[true,false,null,{}]}', '{"":0,"a":1,"ab":2}'])(
    "accepts %s",
    (text) => {
      const { b, start, end } = embedded(text, "", "");
      expect(isAsciiCanonicalObject(b, start, end)).toBe(true);
    },
  );
});

describe("readLineAt, the verifier's in-place reader", () => {
  const types = fc.constantFrom("CLAIM", "META", "VERIFY", "BOOT", "RETRACT") as fc.Arbitrary<EntryType>;
  const entryArb = fc.tuple(fc.dictionary(fc.string(), fc.jsonValue()), types, fc.nat(1000)).map(([data, type, n]) => nextEntry(nextEntry(undefined, "GENESIS", { n }), type, data));

  function fieldsOf(b: Buffer, layout: LineLayout): unknown {
    return {
      header: { seq: layout.seq, type: layout.type, prevHash: b.toString("latin1", layout.prevHashAt, layout.prevHashAt + 64), hash: b.toString("latin1", layout.hashAt, layout.hashAt + 64) },
      canonicalData: b.toString("latin1", layout.dataStart, layout.dataEnd),
    };
  }

  it("reads every ASCII line the ledger writes exactly as the text reader does", () => {
    fc.assert(
      fc.property(entryArb, noise, noise, (entry, before, after) => {
        const line = encodeEntryLine(entry);
        const { b, start, end } = embedded(line, before, `\n${after}`);
        const layout = new LineLayout();
        const read = readLineAt(b, start, layout) === end;
        expect(read).toBe(ASCII.test(line) && !hasEscapedKey(entry.data));
        if (read) expect(fieldsOf(b, layout)).toEqual(readCanonicalLine(line));
      }),
      { numRuns: 2_000 },
    );
  });

  it("accepts no mutated line the text reader refuses, and reads the same fields when both accept", () => {
    const lineChars = fc.constantFrom(...' "\\{}[],:01.9eEaGZ\u00e9\n');
    fc.assert(
      fc.property(entryArb, fc.nat(), ops, lineChars, noise, (entry, at, op, ch, before) => {
        const line = mutate(encodeEntryLine(entry), at, op, ch);
        const { b, start } = embedded(line, before, "\n");
        const layout = new LineLayout();
        const newline = readLineAt(b, start, layout);
        if (newline === -1) return;
        // A newline the mutation put inside the line ends the line there, for both readers.
        expect(b[newline]).toBe(0x0a);
        expect(fieldsOf(b, layout)).toEqual(readCanonicalLine(b.toString("utf8", start, newline)));
      }),
      { numRuns: 20_000 },
    );
  });
});

describe("verification through the in-place path agrees with the text path", () => {
  const dir = mkdtempSync(join(tmpdir(), "provenant-line-bytes-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let run = 0;

  /** The text path alone: every line parsed in full, as the verifier was first written. */
  function reference(lines: readonly string[]): { entries: number; lastHash: string; fault: (ChainFault & { line: number }) | undefined } {
    const verifier = new ChainVerifier(0, undefined);
    for (const [i, line] of lines.entries()) {
      const parsed = parseEntryLine(line);
      const fault = parsed.ok ? verifier.accept(parsed.entry, parsed.canonicalData) : verifier.unreadable(`unreadable entry: ${parsed.reason}`);
      if (fault !== undefined) return { entries: verifier.count, lastHash: verifier.lastHash, fault: { ...fault, line: i + 1 } };
    }
    return { entries: verifier.count, lastHash: verifier.lastHash, fault: undefined };
  }

  // ASCII records (the in-place path), and ones with non-ASCII text, escapes and escaped keys (the text path).
  const record = fc.oneof(
    fc.record({ tool: fc.constantFrom("exec", "web_fetch"), n: fc.integer(), ok: fc.boolean() }),
    fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }),
    fc.dictionary(fc.string({ unit: "binary" }), fc.jsonValue(), { maxKeys: 3 }),
  ) as fc.Arbitrary<EntryData>;
  const tamper = fc.option(fc.tuple(fc.nat(), fc.nat(), ops, fc.constantFrom(...' "\\{}1aZ\u00e9\ud83d\ude02')), { nil: undefined });

  it("hands back the last and found entries as the file holds them (-0 is written, and read back, as 0)", () => {
    const genesis = nextEntry(undefined, "GENESIS", { chain: 0 });
    const last = nextEntry(genesis, "CLAIM", { "": [-0], n: -0 });
    const file = join(dir, "minus-zero.jsonl");
    writeFileSync(file, `${encodeEntryLine(genesis)}\n${encodeEntryLine(last)}\n`);
    const scan = scanChainFile(file, 0, undefined, { entryAt: 1 });
    expect(scan.fault).toBeUndefined();
    expect(scan.last).toEqual({ ...last, data: { "": [0], n: 0 } });
    expect(scan.found).toEqual(scan.last);
  });

  it("on the same verdict, fault seq, reason, line, last entry and found entry, for intact and tampered chains", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 12 }), tamper, fc.nat(12), (records, change, entryAt) => {
        let entry: ChainEntry = nextEntry(undefined, "GENESIS", { chain: 0 });
        const entries = [entry];
        for (const data of records) entries.push((entry = nextEntry(entry, "CLAIM", data)));
        const lines = entries.map(encodeEntryLine);
        if (change !== undefined) {
          const [which, at, op, ch] = change;
          const k = which % lines.length;
          lines[k] = mutate(lines[k] as string, at, op, ch).replaceAll("\n", " ");
        }
        const file = join(dir, `${run++}.jsonl`);
        writeFileSync(file, lines.map((l) => `${l}\n`).join(""));
        // What the file holds: a broken surrogate pair is written as U+FFFD.
        const want = reference(readFileSync(file, "utf8").split("\n").slice(0, -1));
        const got = scanChainFile(file, 0, undefined, { entryAt });
        expect({ entries: got.entries, lastHash: got.lastHash, fault: got.fault === undefined ? undefined : { ...got.fault, file: undefined } }).toEqual({
          entries: want.entries,
          lastHash: want.lastHash,
          fault: want.fault === undefined ? undefined : { ...want.fault, file: undefined },
        });
        // Entries as the file holds them: canonical JSON writes -0 as 0, so read them back from their lines.
        const stored = entries.map((e) => JSON.parse(encodeEntryLine(e)) as ChainEntry);
        expect(got.last).toEqual(want.entries === 0 ? undefined : stored[want.entries - 1]);
        expect(got.found).toEqual(entryAt < want.entries ? stored[entryAt] : undefined);
      }),
      { numRuns: 1_500 },
    );
  });
});
