import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type ChainEntry, nextEntry } from "../../src/ledger/chain-entry.js";
import { scanChainFile } from "../../src/ledger/chain-file.js";
import { verifySegment } from "../../src/ledger/chain-segment.js";
import { encodeEntryLine } from "../../src/ledger/entry-line.js";
import { openLedger } from "../../src/ledger/file-ledger.js";
import { entryLeafHash } from "../../src/ledger/merkle-hash.js";
import { MerkleTree } from "../../src/ledger/merkle-tree.js";
import { MIN_PARALLEL_BYTES, chainFiles, scanLog } from "../../src/ledger/ledger-log.js";
import { type ChainSegment, type SegmentSource, segmentList } from "../../src/ledger/line-walk.js";
import { RANGE_BYTES, SegmentPool, claimRanges, startWorker } from "../../src/ledger/segment-pool.js";

const dir = mkdtempSync(join(tmpdir(), "provenant-parallel-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A ledger of about 2.6 ranges, some records with non-ASCII text (the text path) among the rest. */
function buildEntries(count: number): ChainEntry[] {
  let entry = nextEntry(undefined, "GENESIS", { chain: 0 });
  const entries = [entry];
  for (let i = 1; i < count; i++) {
    const data = { i, note: "n".repeat(100 + ((i * 37) % 400)), ...(i % 11 === 0 ? { text: "réponse reçue" } : {}) };
    entries.push((entry = nextEntry(entry, i % 5 === 0 ? "VERIFY" : "CLAIM", data)));
  }
  return entries;
}
const entries = buildEntries(6_000);
const lines = entries.map((e) => `${encodeEntryLine(e)}\n`);
const text = lines.join("");
const offsets: number[] = [];
let size = 0;
for (const line of lines) {
  offsets.push(size);
  size += Buffer.byteLength(line);
}
const file = join(dir, "ledger.jsonl");
writeFileSync(file, text);

/** What one thread finds, without segments: the reference every parallel scan must equal. */
function sequential(path: string): ReturnType<typeof scanLog> {
  return scanLog(path, { threads: 1 });
}

/** The ranges of verifySegmentsInParallel, verified one after another on this thread. */
function segmentsInOrder(path: string, bytes: number): ChainSegment[] {
  const found: ChainSegment[] = [];
  for (let start = 0; start < bytes; start += RANGE_BYTES) {
    const segment = verifySegment(path, 0, start, Math.min(start + RANGE_BYTES, bytes));
    if (segment !== undefined) found.push(segment);
  }
  return found;
}

/** How many of the pool's ranges are finished (a range's state is 0 until then). */
function finished(pool: SegmentPool): number {
  return pool.work.states.filter((state) => state !== 0).length;
}

/** `source`, noting each segment it hands the walk. */
function recording(source: SegmentSource): { source: SegmentSource; taken: ChainSegment[] } {
  const taken: ChainSegment[] = [];
  return {
    taken,
    source: {
      nextStop: (p) => source.nextStop(p),
      at: (p) => {
        const s = source.at(p);
        if (s !== undefined) taken.push(s);
        return s;
      },
    },
  };
}

describe("verified segments", () => {
  it("tile an intact chain file but for its genesis, each with the seq, hashes and offsets of its lines", () => {
    expect(size).toBeGreaterThan(2 * RANGE_BYTES);
    const segments = segmentsInOrder(file, size);
    expect(segments.length).toBe(Math.ceil(size / RANGE_BYTES));
    expect(segments[0]?.start).toBe(offsets[1]);
    expect(segments[segments.length - 1]?.end).toBe(size);
    for (const [k, s] of segments.entries()) {
      if (k > 0) expect(s.start).toBe(segments[k - 1]?.end);
      expect(s.start).toBe(offsets[s.firstSeq]);
      expect(s.firstPrevHash).toBe(entries[s.firstSeq - 1]?.hash);
      expect(s.lastHash).toBe(entries[s.firstSeq + s.count - 1]?.hash);
      expect(s.lastLineStart).toBe(offsets[s.firstSeq + s.count - 1]);
      expect(s.end).toBe(offsets[s.firstSeq + s.count] ?? size);
    }
  });

  it("stop quietly before the first line that fails, keeping the lines before it", () => {
    const bytes = Buffer.from(text);
    const seq = 3_000;
    bytes[offsets[seq] as number + 20] = 0x21;
    const tampered = join(dir, "one-change.jsonl");
    writeFileSync(tampered, bytes);
    const segment = segmentsInOrder(tampered, size).find((s) => s.start <= (offsets[seq] as number) && (offsets[seq] as number) < s.end + 1);
    expect(segment?.firstSeq).toBeLessThan(seq);
    expect((segment?.firstSeq ?? 0) + (segment?.count ?? 0)).toBe(seq);
    expect(segment?.end).toBe(offsets[seq]);
  });

  it("on any cutting into ranges of any length, and any damage, end and let the walk reach the verdict it reaches alone", () => {
    let entry = nextEntry(undefined, "GENESIS", { chain: 0 });
    const small = [entry];
    for (let i = 1; i < 40; i++) small.push((entry = nextEntry(entry, "CLAIM", { i, note: "s".repeat((i * 53) % 700), ...(i % 6 === 0 ? { t: "é" } : {}) })));
    const smallLines = small.map((e) => `${encodeEntryLine(e)}\n`);
    const damage = fc.array(fc.tuple(fc.nat(), fc.constantFrom("\n", "x", '"', "{", "é", "")), { maxLength: 3 });
    let run = 0;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 3_000 }), { minLength: 1, maxLength: 40 }), damage, (cuts, changes) => {
        let content = smallLines.join("");
        for (const [at, ch] of changes) {
          const i = at % content.length;
          content = content.slice(0, i) + ch + content.slice(i + 1);
        }
        const path = join(dir, `cut-${run++}.jsonl`);
        writeFileSync(path, content);
        const bytes = statSync(path).size;
        const found: ChainSegment[] = [];
        for (let start = 0, k = 0; start < bytes; k++) {
          const end = Math.min(bytes, start + (cuts[k % cuts.length] as number));
          const segment = verifySegment(path, 0, start, end);
          if (segment !== undefined) found.push(segment);
          start = end;
        }
        expect(scanChainFile(path, 0, undefined, { segments: segmentList(found) })).toEqual(scanChainFile(path, 0, undefined));
        rmSync(path);
      }),
      { numRuns: 300 },
    );
  });

  it("are taken only where the walk stands at their first line with their seq and prevHash due", () => {
    const genuine = segmentsInOrder(file, size);
    const reference = scanChainFile(file, 0, undefined);
    const forged: ChainSegment[] = [
      // One line late: its seq is not the one due where it starts.
      { ...(genuine[0] as ChainSegment), firstSeq: (genuine[0] as ChainSegment).firstSeq + 1 },
      // A prevHash the chain does not have.
      { ...(genuine[1] as ChainSegment), firstPrevHash: "0".repeat(64) },
      // Starting in the middle of a line.
      { ...(genuine[2] as ChainSegment), start: (genuine[2] as ChainSegment).start + 3 },
    ];
    for (const segment of forged) {
      const scan = scanChainFile(file, 0, undefined, { segments: segmentList([segment]) });
      expect(scan).toEqual(reference);
    }
    // A forged segment over a tampered region is not taken either: the walk finds the change.
    const bytes = Buffer.from(text);
    const seq = (genuine[1] as ChainSegment).firstSeq + 10;
    bytes[offsets[seq] as number + 30] = 0x21;
    const tampered = join(dir, "forged-over-change.jsonl");
    writeFileSync(tampered, bytes);
    const wrong = { ...(genuine[1] as ChainSegment), firstPrevHash: "f".repeat(64) };
    expect(scanChainFile(tampered, 0, undefined, { segments: segmentList([wrong]) }).fault).toEqual(scanChainFile(tampered, 0, undefined).fault);
  });

  it("give the walk the same result as line by line, the last entry included", () => {
    const scan = scanChainFile(file, 0, undefined, { segments: segmentList(segmentsInOrder(file, size)) });
    expect(scan).toEqual(scanChainFile(file, 0, undefined));
    expect(scan.last).toEqual(entries[entries.length - 1]);
    expect(scanChainFile(file, 0, undefined, { segments: segmentList(segmentsInOrder(file, size)), entryAt: 2_500 }).found).toEqual(entries[2_500]);
  });
});

describe("verification on worker threads", () => {
  it("runs in a real worker thread: a worker alone finishes every range, last first, with the segments this thread finds", () => {
    const pool = SegmentPool.start([{ file, chain: 0, size }], 0);
    startWorker(pool.work);
    const ranges = pool.work.states.length;
    const deadline = Date.now() + 20_000;
    while (finished(pool) < ranges && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    expect(finished(pool)).toBe(ranges);
    const expected = segmentsInOrder(file, size);
    expect(expected.map((s) => pool.sourceFor(0).at(s.start))).toEqual(expected);
  });

  it("lets the walk take whole every segment the workers finished, with what the walk alone finds", () => {
    const pool = SegmentPool.start([{ file, chain: 0, size }], 0);
    // This thread stands in for the workers, which finish every range before the walk starts.
    claimRanges(pool.work);
    const { source: counting, taken } = recording(pool.sourceFor(0));
    expect(scanChainFile(file, 0, undefined, { segments: counting })).toEqual(scanChainFile(file, 0, undefined));
    expect(taken).toEqual(segmentsInOrder(file, size));
  });

  it("stops workers at the walk: none claims a range the walk is in or has passed", () => {
    const pool = SegmentPool.start([{ file, chain: 0, size }], 0);
    pool.finish();
    claimRanges(pool.work);
    expect(finished(pool)).toBe(0);
    const walking = SegmentPool.start([{ file, chain: 0, size }], 0);
    walking.sourceFor(0).nextStop(RANGE_BYTES + 5);
    claimRanges(walking.work);
    expect(finished(walking)).toBe(walking.work.states.length - 2);
  });

  it("on two threads, gives what one thread gives", () => {
    expect(scanLog(file, { threads: 2 })).toEqual(sequential(file));
  });

  it("on a tampered, truncated, reordered or torn ledger, with workers done with any share of it, gives the same verdict, fault, line and reason as the walk alone", () => {
    const tamper = fc.oneof(
      fc.record({ kind: fc.constant("flip" as const), at: fc.nat(size - 1), bit: fc.nat(7) }),
      fc.record({ kind: fc.constant("drop" as const), line: fc.integer({ min: 0, max: lines.length - 1 }) }),
      fc.record({ kind: fc.constant("swap" as const), line: fc.integer({ min: 0, max: lines.length - 2 }) }),
      fc.record({ kind: fc.constant("tear" as const), keep: fc.nat(size - 1) }),
    );
    let run = 0;
    fc.assert(
      fc.property(tamper, fc.nat(size), (t, walkAt) => {
        let bytes: Buffer;
        if (t.kind === "flip") {
          bytes = Buffer.from(text);
          bytes[t.at] = (bytes[t.at] as number) ^ (1 << t.bit);
        } else if (t.kind === "drop") {
          bytes = Buffer.from(lines.filter((_, i) => i !== t.line).join(""));
        } else if (t.kind === "swap") {
          const swapped = [...lines];
          [swapped[t.line], swapped[t.line + 1]] = [swapped[t.line + 1] as string, swapped[t.line] as string];
          bytes = Buffer.from(swapped.join(""));
        } else {
          bytes = Buffer.from(text).subarray(0, t.keep);
        }
        const path = join(dir, `tampered-${run++}.jsonl`);
        writeFileSync(path, bytes);
        // Workers took the ranges from the back until they met the walk at `walkAt`.
        const pool = SegmentPool.start([{ file: path, chain: 0, size: bytes.length }], 0);
        pool.sourceFor(0).nextStop(walkAt);
        claimRanges(pool.work);
        expect(scanChainFile(path, 0, undefined, { segments: pool.sourceFor(0) })).toEqual(scanChainFile(path, 0, undefined));
        rmSync(path);
      }),
      { numRuns: 40 },
    );
  });

  it("leaves to the walk a range that opens inside a line longer than a range, and agrees with it", () => {
    let entry = nextEntry(undefined, "GENESIS", { chain: 0 });
    const long = [entry];
    for (let i = 1; i < 3_000; i++) long.push((entry = nextEntry(entry, "CLAIM", i === 1_500 ? { blob: "x".repeat(3 * RANGE_BYTES) } : { i, note: "m".repeat(400) })));
    const path = join(dir, "long-line.jsonl");
    writeFileSync(path, long.map((e) => `${encodeEntryLine(e)}\n`).join(""));
    const bytes = statSync(path).size;
    const pool = SegmentPool.start([{ file: path, chain: 0, size: bytes }], 0);
    claimRanges(pool.work);
    const { source, taken } = recording(pool.sourceFor(0));
    const scan = scanChainFile(path, 0, undefined, { segments: source });
    expect(scan).toEqual(scanChainFile(path, 0, undefined));
    expect(scan.entries).toBe(long.length);
    // Ranges that open inside the long line find their first line after it, or none at all.
    expect(taken.length).toBeGreaterThan(0);
    expect(taken.length).toBeLessThan(pool.work.states.length);
  });

  it("builds the same Merkle tree from segments' leaf hashes as from every entry, intact or tampered", () => {
    /** The walk with a tree, and the root and size it ends with. */
    const treeWalk = (path: string, segments?: SegmentSource): { scan: ReturnType<typeof scanChainFile>; root: Buffer; size: number } => {
      const tree = new MerkleTree();
      const scan = scanChainFile(path, 0, undefined, {
        onEntry: (hash) => tree.append(entryLeafHash(hash)),
        onLeaves: (leaves) => tree.appendLeaves(leaves),
        segments,
      });
      return { scan, root: tree.root(), size: tree.size };
    };
    let run = 0;
    fc.assert(
      fc.property(fc.option(fc.tuple(fc.nat(size - 1), fc.nat(7)), { nil: undefined }), fc.nat(size), (flip, walkAt) => {
        const bytes = Buffer.from(text);
        if (flip !== undefined) bytes[flip[0]] = (bytes[flip[0]] as number) ^ (1 << flip[1]);
        const path = join(dir, `tree-${run++}.jsonl`);
        writeFileSync(path, bytes);
        const pool = SegmentPool.start([{ file: path, chain: 0, size: bytes.length }], 0, true);
        pool.sourceFor(0).nextStop(walkAt);
        claimRanges(pool.work, pool.connect());
        const { source: counting, taken } = recording(pool.sourceFor(0));
        const withSegments = treeWalk(path, counting);
        expect(withSegments).toEqual(treeWalk(path));
        if (flip === undefined && walkAt < RANGE_BYTES) expect(taken.length).toBeGreaterThan(0);
        for (const s of taken) expect(s.leaves?.length).toBe(s.count * 32);
        pool.finish();
        rmSync(path);
      }),
      { numRuns: 25 },
    );
  });

  it("takes no segment without leaf hashes when the walk builds a tree", () => {
    const pool = SegmentPool.start([{ file, chain: 0, size }], 0);
    claimRanges(pool.work);
    const tree = new MerkleTree();
    let leavesHeard = 0;
    const scan = scanChainFile(file, 0, undefined, {
      onEntry: (hash) => tree.append(entryLeafHash(hash)),
      onLeaves: () => leavesHeard++,
      segments: pool.sourceFor(0),
    });
    expect(leavesHeard).toBe(0);
    expect(scan.entries).toBe(entries.length);
    expect(tree.size).toBe(entries.length);
  });

  it("maps each file of a chain of chains to its own ranges", () => {
    const ledgerPath = join(dir, "rotated", "ledger.jsonl");
    const ledger = openLedger(ledgerPath, { fsync: "never", rotateEntries: 2_500 });
    for (let i = 1; i < 9_000; i++) ledger.record("CLAIM", { i, note: "r".repeat(300 + (i % 400)) });
    ledger.close();
    const files = chainFiles(ledgerPath).map((f) => ({ file: f.file, chain: f.chain, size: statSync(f.file).size }));
    expect(files.length).toBeGreaterThan(3);
    const pool = SegmentPool.start(files, 0);
    claimRanges(pool.work);
    for (const [i, f] of files.entries()) {
      const { source: counting, taken } = recording(pool.sourceFor(i));
      expect(scanChainFile(f.file, f.chain, "unchecked", { segments: counting })).toEqual(scanChainFile(f.file, f.chain, "unchecked"));
      expect(taken.length).toBe(Math.ceil(f.size / RANGE_BYTES));
    }
    const one = sequential(ledgerPath);
    expect(one.fault).toBeUndefined();
    expect(scanLog(ledgerPath, { threads: 2 })).toEqual(one);
  });

  it("reports progress that only moves forward, up to the whole ledger", () => {
    const seen: number[] = [];
    scanLog(file, { threads: 2, onProgress: (done, total) => seen.push(done / total) });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen[seen.length - 1]).toBe(1);
  });

  it("refuses a thread count that is not a whole number from 1 to 64", () => {
    for (const threads of [0, -1, 1.5, 65, Number.NaN]) expect(() => scanLog(file, { threads })).toThrow(/threads must be a whole number from 1 to 64/);
  });
});

describe("provenant ledger verify --threads, as a real process on the built CLI", () => {
  const cli = join(process.cwd(), "dist", "cli", "main.js");
  const run = (...args: string[]): { status: number | null; stdout: string; stderr: string } => spawnSync(process.execPath, [cli, "ledger", "verify", ...args], { encoding: "utf8" });

  it("agrees with one thread, intact and tampered, on a ledger large enough for worker threads", { timeout: 90_000 }, () => {
    expect(statSync(cli).isFile()).toBe(true);
    const big = buildEntries(70_000);
    const bigLines = big.map((e) => `${encodeEntryLine(e)}\n`);
    const bigFile = join(dir, "cli-big.jsonl");
    writeFileSync(bigFile, bigLines.join(""));
    expect(statSync(bigFile).size).toBeGreaterThan(MIN_PARALLEL_BYTES);
    const two = run("--ledger", bigFile, "--threads", "2");
    expect(two).toMatchObject({ status: 0, stdout: `ok: ${big.length} entries in 1 chain, head ${big[big.length - 1]?.hash}\n` });
    expect(two.stdout).toBe(run("--ledger", bigFile, "--threads", "1").stdout);
    // With a Merkle tree too, on worker threads from the sources, in this process.
    const oneTree = scanLog(bigFile, { threads: 1, tree: true });
    const twoTree = scanLog(bigFile, { threads: 2, tree: true });
    expect(twoTree.tree?.size).toBe(big.length);
    expect(twoTree.tree?.root()).toEqual(oneTree.tree?.root());
    const seq = 65_000;
    bigLines[seq] = (bigLines[seq] as string).replace('"note":"n', '"note":"N');
    const tampered = join(dir, "cli-tampered.jsonl");
    writeFileSync(tampered, bigLines.join(""));
    const failed = run("--ledger", tampered, "--threads", "2");
    expect(failed.status).toBe(1);
    expect(failed.stderr).toBe(run("--ledger", tampered, "--threads", "1").stderr);
    expect(failed.stderr).toMatch(new RegExp(`CORRUPT at chain 0 seq ${seq} .* line ${seq + 1}\\): hash mismatch`));
  });

  it("refuses a bad --threads with status 2", () => {
    const bad = run("--ledger", file, "--threads", "0");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--threads must be a whole number from 1 to 64, got "0"/);
  });
});
