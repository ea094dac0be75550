import { availableParallelism } from "node:os";
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from "node:worker_threads";
import { verifySegment } from "./chain-segment.js";
import type { ChainSegment, SegmentSource } from "./line-walk.js";

/** A chain file to share out, and its index in the chain of chains. */
export interface SegmentFile {
  readonly file: string;
  readonly chain: number;
  readonly size: number;
}

/** What the threads share: the files, the ranges, and where each range's result goes. */
export interface SegmentWork {
  readonly files: readonly SegmentFile[];
  /** Per range, in file order: index into files, start, end. */
  readonly ranges: Float64Array;
  /** [ranges claimed from the back, the range the walk is in]. */
  readonly control: Int32Array;
  /** Per range: 0 until finished, then RANGE_DONE or RANGE_NONE. */
  readonly states: Int32Array;
  /** Per range: start, end, firstSeq, count, lastLineStart. */
  readonly numbers: Float64Array;
  /** Per range: firstPrevHash and lastHash, 64 hex bytes each. */
  readonly hashes: Uint8Array;
  /** Whether segments carry their entries' leaf hashes (sent by message, ahead of the range's state). */
  readonly withLeaves: boolean;
}

const TAKEN = 0;
const WALK_AT = 1;
const RANGE_DONE = 1;
const RANGE_NONE = 2;
const FIELDS = 5;
const HEX = 64;

/** Bytes per range: large enough that a range costs far more than claiming it. */
export const RANGE_BYTES = 1 << 20;

export const MAX_THREADS = 64;

/** The cores available, up to 8: past that, reading the file, not hashing, sets the pace. */
export function defaultSegmentThreads(): number {
  return Math.min(availableParallelism(), 8);
}

/**
 * Verification on more than one thread. The ledger is cut into ranges; worker threads verify them
 * as segments (verifySegment), taking the last range first and working back, while the walk on
 * this thread goes on from the front as it would alone and takes whole each segment it finds
 * finished where it stands. The walk never waits for a worker: a range not finished when the walk
 * gets there is walked line by line, and workers stop once the walk has passed the ranges left. So
 * a worker slow to start costs nothing but its start-up, and nothing here is a verdict: a segment
 * only lets the walk skip lines it would have accepted.
 */
export class SegmentPool {
  /** Per file: its first range, and how many it has. */
  private readonly firstRange: number[] = [];
  private readonly rangeCount: number[] = [];
  /** This side of each worker's channel for leaf hashes, and the leaves received, by range. */
  private readonly ports: MessagePort[] = [];
  private readonly leaves = new Map<number, Uint8Array>();

  private constructor(readonly work: SegmentWork) {
    // Read off the ranges shareWork cut, which come in file order.
    for (let k = 0; k < work.states.length; k++) {
      const file = work.ranges[k * 3] as number;
      this.firstRange[file] ??= k;
      this.rangeCount[file] = (this.rangeCount[file] ?? 0) + 1;
    }
  }

  /**
   * Shares out `files` and starts `workers` worker threads on them; `withLeaves` when the walk builds
   * a Merkle tree, so that each segment brings its entries' leaf hashes.
   */
  static start(files: readonly SegmentFile[], workers: number, withLeaves = false): SegmentPool {
    const pool = new SegmentPool(shareWork(files, withLeaves));
    for (let i = 0; i < workers; i++) {
      const port = withLeaves ? pool.connect() : undefined;
      try {
        startWorker(pool.work, port);
      } catch {
        // No thread to be had (a resource limit): the walk does the work, as on one thread.
        port?.close();
        break;
      }
    }
    return pool;
  }

  /** A port for whoever verifies ranges (claimRanges) to send leaf hashes on; this pool reads the other end. */
  connect(): MessagePort {
    const channel = new MessageChannel();
    this.ports.push(channel.port1);
    return channel.port2;
  }

  /** The segments the workers have finished in the file at `fileIndex`, as the walk asks for them. */
  sourceFor(fileIndex: number): SegmentSource {
    const { work } = this;
    const first = this.firstRange[fileIndex] ?? 0;
    const count = this.rangeCount[fileIndex] ?? 0;
    return {
      // A range's segment starts at the first line after a newline in the range: at its start + 1 at the earliest.
      nextStop: (position) => {
        const r = Math.max(0, Math.ceil((position - 1) / RANGE_BYTES));
        Atomics.store(work.control, WALK_AT, first + Math.min(r, count) - 1);
        return r < count ? r * RANGE_BYTES + 1 : Number.POSITIVE_INFINITY;
      },
      at: (position) => {
        const r = Math.floor((position - 1) / RANGE_BYTES);
        if (position < 1 || r >= count) return undefined;
        const k = first + r;
        if (Atomics.load(work.states, k) !== RANGE_DONE || work.numbers[k * FIELDS] !== position) return undefined;
        if (!work.withLeaves) return segmentAt(work, k);
        const leaves = this.leavesOf(k);
        return leaves === undefined ? undefined : { ...segmentAt(work, k), leaves };
      },
    };
  }

  /** The walk is over: workers stop after the range each is on. */
  finish(): void {
    Atomics.store(this.work.control, WALK_AT, this.work.states.length);
    for (const port of this.ports) port.close();
  }

  /** The leaf hashes of range k, from what the workers have sent so far. */
  private leavesOf(k: number): Uint8Array | undefined {
    if (!this.leaves.has(k)) {
      for (const port of this.ports) {
        for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
          const { range, leaves } = m.message as LeavesMessage;
          this.leaves.set(range, leaves);
        }
      }
    }
    const leaves = this.leaves.get(k);
    this.leaves.delete(k);
    return leaves;
  }
}

/** What a worker sends the walk for each range it verified, when leaves are asked for. */
interface LeavesMessage {
  readonly range: number;
  readonly leaves: Uint8Array;
}

/** What a worker thread is started with. */
export interface WorkerInput {
  readonly work: SegmentWork;
  readonly port: MessagePort | undefined;
}

/** Cuts the files into ranges, in memory every thread can see. */
function shareWork(files: readonly SegmentFile[], withLeaves = false): SegmentWork {
  const ranges: number[] = [];
  files.forEach((f, index) => {
    for (let start = 0; start < f.size; start += RANGE_BYTES) ranges.push(index, start, Math.min(start + RANGE_BYTES, f.size));
  });
  const count = ranges.length / 3;
  const shared = (bytes: number): SharedArrayBuffer => new SharedArrayBuffer(Math.max(bytes, 8));
  const control = new Int32Array(shared(8));
  control[WALK_AT] = -1;
  return {
    files,
    ranges: Float64Array.from(ranges),
    control,
    states: new Int32Array(shared(count * 4)),
    numbers: new Float64Array(shared(count * FIELDS * 8)),
    hashes: new Uint8Array(shared(count * 2 * HEX)),
    withLeaves,
  };
}

/**
 * What a worker thread runs: claims ranges from the back and verifies them until it meets the walk.
 * With leaves asked for, each range's leaf hashes go to `port` before its state says it is done.
 */
export function claimRanges(work: SegmentWork, port?: MessagePort): void {
  const count = work.states.length;
  for (;;) {
    const k = count - 1 - Atomics.add(work.control, TAKEN, 1);
    if (k < 0 || k <= Atomics.load(work.control, WALK_AT)) return;
    let state = RANGE_NONE;
    try {
      const f = work.files[work.ranges[k * 3] as number] as SegmentFile;
      const segment = verifySegment(f.file, f.chain, work.ranges[k * 3 + 1] as number, work.ranges[k * 3 + 2] as number, work.withLeaves);
      if (segment !== undefined && (!work.withLeaves || (port !== undefined && segment.leaves !== undefined))) {
        if (port !== undefined && segment.leaves !== undefined) {
          const message: LeavesMessage = { range: k, leaves: segment.leaves };
          port.postMessage(message, [segment.leaves.buffer as ArrayBuffer]);
        }
        work.numbers.set([segment.start, segment.end, segment.firstSeq, segment.count, segment.lastLineStart], k * FIELDS);
        work.hashes.set(Buffer.from(segment.firstPrevHash + segment.lastHash, "latin1"), k * 2 * HEX);
        state = RANGE_DONE;
      }
    } catch {
      // An unreadable range is simply left to the walk, which reports what is wrong with it.
    }
    // Published last: the walk reads a range's fields only once its state says they are there.
    Atomics.store(work.states, k, state);
  }
}

function segmentAt(work: SegmentWork, k: number): ChainSegment {
  const n = work.numbers;
  const at = k * FIELDS;
  const hex = Buffer.from(work.hashes.buffer, work.hashes.byteOffset + k * 2 * HEX, 2 * HEX);
  return {
    start: n[at] as number,
    end: n[at + 1] as number,
    firstSeq: n[at + 2] as number,
    count: n[at + 3] as number,
    lastLineStart: n[at + 4] as number,
    firstPrevHash: hex.toString("latin1", 0, HEX),
    lastHash: hex.toString("latin1", HEX, 2 * HEX),
  };
}

const WORKER_URL = new URL(import.meta.url.endsWith(".ts") ? "./segment-worker.ts" : "./segment-worker.js", import.meta.url);

/**
 * Starts a worker thread that verifies ranges of `work` from the back until it meets the walk, then
 * ends; leaf hashes, when asked for, go through `port`.
 */
export function startWorker(work: SegmentWork, port?: MessagePort): Worker {
  const workerData: WorkerInput = { work, port };
  const transferList = port === undefined ? [] : [port];
  // Run from the TypeScript sources (tests), the worker first registers the loader that runs them,
  // a dev dependency found from the working directory: the project's root.
  const worker = WORKER_URL.pathname.endsWith(".ts")
    ? new Worker(`import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); });`, {
        eval: true,
        workerData,
        transferList,
      })
    : // The compiled worker needs none of the parent's flags; a loader among them would only slow its start.
      new Worker(WORKER_URL, { workerData, transferList, execArgv: [] });
  // A worker that cannot start claims nothing; the walk verifies what it would have taken.
  worker.on("error", () => undefined);
  worker.unref();
  return worker;
}
