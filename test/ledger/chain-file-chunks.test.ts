import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ChainEntry, nextEntry } from "../../src/ledger/chain-entry.js";
import { scanChainFile } from "../../src/ledger/chain-file.js";
import { encodeEntryLine } from "../../src/ledger/entry-line.js";

// The scan reads a file a megabyte at a time: these ledgers put lines across those boundaries,
// including one line longer than three of them.
const MB = 1 << 20;

describe("a chain file scanned in chunks", () => {
  const dir = mkdtempSync(join(tmpdir(), "provenant-chunks-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const entries: ChainEntry[] = [];
  let entry = nextEntry(undefined, "GENESIS", { chain: 0 });
  entries.push(entry);
  for (let i = 1; i < 9_000; i++) {
    const data = i === 4_000 ? { blob: "x".repeat(3 * MB + 17) } : { i, note: "n".repeat(i % 300), ...(i % 7 === 0 ? { text: "réponse" } : {}) };
    entries.push((entry = nextEntry(entry, i % 5 === 0 ? "VERIFY" : "CLAIM", data)));
  }
  const lines = entries.map((e) => `${encodeEntryLine(e)}\n`);
  const text = lines.join("");
  const file = join(dir, "ledger.jsonl");
  writeFileSync(file, text);
  const offsets: number[] = [];
  let offset = 0;
  for (const line of lines) {
    offsets.push(offset);
    offset += Buffer.byteLength(line);
  }
  /** The first entry whose line starts before and ends after `boundary`. */
  const straddling = (boundary: number): number => offsets.findIndex((o, i) => o < boundary && (offsets[i + 1] ?? offset) > boundary);

  it("verifies every entry, whatever chunk its line falls in", () => {
    expect(offset).toBeGreaterThan(6 * MB);
    const scan = scanChainFile(file, 0, undefined);
    expect(scan.fault).toBeUndefined();
    expect(scan.tornTail).toBeUndefined();
    expect(scan.entries).toBe(entries.length);
    expect(scan.lastHash).toBe(entries[entries.length - 1]?.hash);
    expect(scan.last).toEqual(entries[entries.length - 1]);
    expect(scan.completeBytes).toBe(offset);
  });

  it("hands back an entry whose line crosses a chunk boundary, and the one longer than a chunk", () => {
    for (const seq of [straddling(MB), straddling(5 * MB), 4_000]) {
      expect(seq).toBeGreaterThan(0);
      expect(scanChainFile(file, 0, undefined, { entryAt: seq }).found).toEqual(entries[seq]);
    }
  });

  it("finds a change inside a line that crosses a chunk boundary, at its seq and line", () => {
    for (const boundary of [MB, 2 * MB, 5 * MB]) {
      const seq = straddling(boundary);
      const bytes = Buffer.from(text);
      // The byte at the boundary, which lies inside that line.
      bytes[boundary] = (bytes[boundary] as number) ^ 1;
      const tampered = join(dir, `tampered-${boundary}.jsonl`);
      writeFileSync(tampered, bytes);
      const scan = scanChainFile(tampered, 0, undefined);
      expect({ seq: scan.fault?.seq, line: scan.fault?.line, entries: scan.entries }).toEqual({ seq, line: seq + 1, entries: seq });
      expect(scan.completeBytes).toBe(offsets[seq]);
    }
  });

  it("cuts a torn tail back to the last complete line, however long the tail", () => {
    for (const tail of ['{"data":{"i":', `{"data":{"blob":"${"y".repeat(2 * MB)}`]) {
      const torn = join(dir, `torn-${tail.length}.jsonl`);
      writeFileSync(torn, readFileSync(file));
      appendFileSync(torn, tail);
      const scan = scanChainFile(torn, 0, undefined);
      expect(scan.fault).toBeUndefined();
      expect(scan.entries).toBe(entries.length);
      expect(scan.tornTail).toEqual({ file: torn, offset, bytes: Buffer.byteLength(tail), afterSeq: entries.length - 1 });
    }
  });

  it("reports progress up to the end of the file", () => {
    const seen: number[] = [];
    scanChainFile(file, 0, undefined, { onBytes: (done) => seen.push(done) });
    expect(seen.length).toBeGreaterThan(3);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen[seen.length - 1]).toBe(offset);
  });
});
