import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type ChainEntry, type EntryType, chainHash, nextEntry } from "../../src/ledger/chain-entry.js";
import { scanChainFile } from "../../src/ledger/chain-file.js";
import { ChainVerifier } from "../../src/ledger/chain-verifier.js";
import { canonicalJSON } from "../../src/ledger/canonical-json.js";
import { encodeEntryLine } from "../../src/ledger/entry-line.js";

/**
 * A chain file is read first by a fast path that hashes each line's bytes in place
 * (ChainVerifier.acceptRun) and hands every line it does not vouch for to the entry-by-entry check
 * (ChainVerifier.accept). The fast path must vouch for nothing that check refuses: these lines are
 * each wrong in one way while their stored hash is what an attacker would compute for them, so
 * only the rule under test can catch them.
 */
describe("the chain file's fast path vouches for nothing the entry-by-entry check refuses", () => {
  const dir = mkdtempSync(join(tmpdir(), "provenant-fast-path-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const valid: ChainEntry[] = [];
  let last = nextEntry(undefined, "GENESIS", { chain: 0 });
  valid.push(last);
  for (let i = 1; i < 40; i++) valid.push((last = nextEntry(last, "CLAIM", { i })));

  /** An entry with every field as given and the hash computed over `hashedPrev` (its own prevHash unless said). */
  const forged = (seq: number, type: EntryType, prevHash: string, hashedPrev = prevHash): ChainEntry => ({
    seq,
    type,
    data: { forged: seq },
    prevHash,
    hash: chainHash(hashedPrev, seq, type, { forged: seq }),
  });

  let n = 0;
  const scan = (entries: readonly ChainEntry[], tail = "\n") => {
    const file = join(dir, `chain-${++n}.jsonl`);
    writeFileSync(file, entries.map((e) => encodeEntryLine(e)).join("\n") + tail);
    return scanChainFile(file, 0, undefined);
  };
  /** What the entry-by-entry check says of the same entries. */
  const judged = (entries: readonly ChainEntry[]) => {
    const verifier = new ChainVerifier(0, undefined);
    for (const entry of entries) {
      const fault = verifier.accept(entry, canonicalJSON(entry.data));
      if (fault !== undefined) return fault;
    }
    return undefined;
  };

  const prefix = valid.slice(0, 30);
  const prev = prefix[29]?.hash ?? "";
  const cases: [string, ChainEntry, string][] = [
    ["a gap in seq", forged(32, "CLAIM", prev), "expected seq=30, found seq=32 (gap)"],
    ["a seq repeated", forged(29, "CLAIM", prev), "expected seq=30, found seq=29 (duplicate or reordered entry)"],
    ["a GENESIS inside the chain", forged(30, "GENESIS", prev), "GENESIS entry inside a chain"],
    ["a prevHash field other than the one hashed", forged(30, "CLAIM", "f".repeat(64), prev), "prevHash does not match the hash of seq 29"],
    ["a prevHash other than the last hash", forged(30, "CLAIM", valid[10]?.hash ?? ""), "prevHash does not match the hash of seq 29"],
  ];

  it.each(cases)("%s, after lines the fast path took", (_, bad, reason) => {
    const entries = [...prefix, bad, ...valid.slice(31)];
    expect(judged(entries)).toEqual({ chain: 0, seq: 30, reason });
    const result = scan(entries);
    expect(result.fault).toMatchObject({ chain: 0, seq: 30, reason });
    expect(result.entries).toBe(30);
    expect(result.lastHash).toBe(prev);
  });

  it("a chain whose every line is right is taken whole, the last line without its newline set apart", () => {
    expect(scan(valid)).toMatchObject({ entries: 40, lastHash: last.hash });
    expect(scan(valid).fault).toBeUndefined();
    const torn = scan(valid, "");
    expect(torn.fault).toBeUndefined();
    expect(torn.entries).toBe(39);
    expect(torn.tornTail).toBeDefined();
  });

  it("property: a byte changed anywhere, the file scan and the entry-by-entry check agree on where the chain breaks", () => {
    const text = Buffer.from(valid.map((e) => `${encodeEntryLine(e)}\n`).join(""));
    const starts: number[] = [];
    for (let i = 0, at = 0; i < valid.length; i++) {
      starts.push(at);
      at += Buffer.byteLength(`${encodeEntryLine(valid[i] as ChainEntry)}\n`);
    }
    fc.assert(
      fc.property(fc.integer({ min: 0, max: text.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const bytes = Buffer.from(text);
        bytes[at] = (bytes[at] as number) ^ flip;
        const file = join(dir, `flip-${++n}.jsonl`);
        writeFileSync(file, bytes);
        const result = scanChainFile(file, 0, undefined);
        const line = starts.findLastIndex((s) => s <= at);
        // Every line before the changed one stands; the chain breaks at the changed line or, when
        // the change broke its newline, where the torn or merged line was.
        expect(result.entries).toBeLessThanOrEqual(line + (bytes[at] === 0x0a ? 1 : 0));
        expect(result.entries).toBeGreaterThanOrEqual(Math.min(line, 39));
        if (result.fault !== undefined) expect(result.fault.seq).toBe(result.entries);
      }),
      { numRuns: 300 },
    );
  });
});
