import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { verifySegment } from "./chain-segment.js";
import type { ChainSegment } from "./line-walk.js";

/** A chain file to share out, and its index in the chain of chains. */
export interface SegmentFile {
  readonly file: string;
  readonly chain: number;
  readonly size: number;
}

/** What the threads share: the files, the ranges, and where each range's result goes. */
export interface SegmentWork {
  readonly files: readonly SegmentFile[];
  /** Per range: index into files, start, end. */
  readonly ranges: Float64Array;
  /** [next range to claim, ranges finished]. */
  readonly control: Int32Array;
  /** Per range: 0 until finished, then RANGE_DONE or RANGE_NONE. */
  readonly states: Int32Array;
  /** Per range: start, end, firstSeq, count, lastLineStart. */
  readonly numbers: Float64Array;
  /** Per range: firstPrevHash and lastHash, 64 hex bytes each. */
  readonly hashes: Uint8Array;
}

const NEXT = 0;
const FINISHED = 1;
const RANGE_DONE = 1;
const RANGE_NONE = 2;
const FIELDS = 5;
const HEX = 64;

/** Bytes per range: large enough that a range costs far more than claiming it. */
export const RANGE_BYTES = 1 << 20;
/** How long the caller waits without any range finishing before it verifies the rest itself. */
const STALL_MS = 5_000;

export const MAX_THREADS = 64;

/** The cores available, up to 8: past that, reading the file, not hashing, sets the pace. */
export function defaultSegmentThreads(): number {
  return Math.min(availableParallelism(), 8);
}

/**
 * The parallel pre-pass of verification: cuts the files into ranges and verifies each range's
 * lines as a segment (verifySegment), on this thread and `threads - 1` worker threads at once, each
 * claiming the next range as it finishes one. This thread starts at once and the workers join as
 * they come up, so a small ledger costs a worker's start-up and nothing more. Blocks until every
 * claimed range is finished, and returns the segments of each file in file order. Nothing here is
 * a verdict: a segment only lets the full walk skip lines it would have accepted.
 */
export function verifySegmentsInParallel(
  files: readonly SegmentFile[],
  threads: number,
  onProgress?: (doneBytes: number) => void,
): Map<string, ChainSegment[]> {
  const work = shareWork(files);
  const rangeCount = work.states.length;
  const workers = Math.max(0, Math.min(threads - 1, rangeCount - 1));
  for (let i = 0; i < workers; i++) startWorker(work);
  claimRanges(work, onProgress === undefined ? undefined : (finished) => onProgress(finished * RANGE_BYTES));
  const claimed = Math.min(Atomics.load(work.control, NEXT), rangeCount);
  for (let finished = Atomics.load(work.control, FINISHED); finished < claimed; finished = Atomics.load(work.control, FINISHED)) {
    // A worker that died mid-range never finishes it: after a long quiet spell, go on without it.
    if (Atomics.wait(work.control, FINISHED, finished, STALL_MS) === "timed-out") break;
  }
  return collectSegments(work);
}

/** Cuts the files into ranges, in memory every thread can see. */
export function shareWork(files: readonly SegmentFile[]): SegmentWork {
  const ranges: number[] = [];
  files.forEach((f, index) => {
    for (let start = 0; start < f.size; start += RANGE_BYTES) ranges.push(index, start, Math.min(start + RANGE_BYTES, f.size));
  });
  const count = ranges.length / 3;
  const shared = (bytes: number): SharedArrayBuffer => new SharedArrayBuffer(Math.max(bytes, 8));
  return {
    files,
    ranges: Float64Array.from(ranges),
    control: new Int32Array(shared(8)),
    states: new Int32Array(shared(count * 4)),
    numbers: new Float64Array(shared(count * FIELDS * 8)),
    hashes: new Uint8Array(shared(count * 2 * HEX)),
  };
}

/**
 * Claims and verifies ranges until none is left; what every thread of the pre-pass runs.
 * `onFinished` hears how many ranges all threads have finished, after each range this one does.
 */
export function claimRanges(work: SegmentWork, onFinished?: (finished: number) => void): void {
  const count = work.states.length;
  for (let k = Atomics.add(work.control, NEXT, 1); k < count; k = Atomics.add(work.control, NEXT, 1)) {
    let state = RANGE_NONE;
    try {
      const f = work.files[work.ranges[k * 3] as number] as SegmentFile;
      const segment = verifySegment(f.file, f.chain, work.ranges[k * 3 + 1] as number, work.ranges[k * 3 + 2] as number);
      if (segment !== undefined) {
        work.numbers.set([segment.start, segment.end, segment.firstSeq, segment.count, segment.lastLineStart], k * FIELDS);
        work.hashes.set(Buffer.from(segment.firstPrevHash + segment.lastHash, "latin1"), k * 2 * HEX);
        state = RANGE_DONE;
      }
    } catch {
      // An unreadable range is simply left to the full walk, which reports what is wrong with it.
    }
    Atomics.store(work.states, k, state);
    const finished = Atomics.add(work.control, FINISHED, 1) + 1;
    Atomics.notify(work.control, FINISHED);
    onFinished?.(finished);
  }
}

/** How many ranges are finished, by any thread. */
export function finishedRanges(work: SegmentWork): number {
  return Atomics.load(work.control, FINISHED);
}

/** The segments of each file, in file order, from the ranges finished so far. */
export function collectSegments(work: SegmentWork): Map<string, ChainSegment[]> {
  const byFile = new Map<string, ChainSegment[]>(work.files.map((f) => [f.file, []]));
  const text = Buffer.from(work.hashes.buffer);
  for (let k = 0; k < work.states.length; k++) {
    if (Atomics.load(work.states, k) !== RANGE_DONE) continue;
    const n = work.numbers.subarray(k * FIELDS, (k + 1) * FIELDS);
    const file = (work.files[work.ranges[k * 3] as number] as SegmentFile).file;
    byFile.get(file)?.push({
      start: n[0] as number,
      end: n[1] as number,
      firstSeq: n[2] as number,
      count: n[3] as number,
      lastLineStart: n[4] as number,
      firstPrevHash: text.toString("latin1", k * 2 * HEX, k * 2 * HEX + HEX),
      lastHash: text.toString("latin1", k * 2 * HEX + HEX, (k + 1) * 2 * HEX),
    });
  }
  return byFile;
}

const WORKER_URL = new URL(import.meta.url.endsWith(".ts") ? "./segment-worker.ts" : "./segment-worker.js", import.meta.url);

/** Starts a worker thread that claims ranges of `work` until none is left, then ends. */
export function startWorker(work: SegmentWork): Worker {
  // Run from the TypeScript sources (tests, benches), the worker first registers the loader that runs them.
  const worker = WORKER_URL.pathname.endsWith(".ts")
    ? new Worker(`import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); });`, {
        eval: true,
        workerData: work,
      })
    : new Worker(WORKER_URL, { workerData: work });
  // A worker that cannot start claims nothing; the ranges it would have taken are done here.
  worker.on("error", () => undefined);
  worker.unref();
  return worker;
}
