import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ChainEntry } from "./chain-entry.js";
import { type ChainFileFault, type ChainFileScan, type TornTail, scanChainFile } from "./chain-file.js";
import { ARCHIVE_NAME, archiveDir } from "./ledger-paths.js";
import { entryLeafHash } from "./merkle-hash.js";
import { MerkleTree } from "./merkle-tree.js";
import { MAX_THREADS, RANGE_BYTES, SegmentPool, defaultSegmentThreads } from "./segment-pool.js";

export interface ChainFileRef {
  readonly chain: number;
  readonly file: string;
  readonly sealed: boolean;
}

/** The sealed archives in chain order, then the active file if it exists. */
export function chainFiles(ledgerPath: string): ChainFileRef[] {
  const dir = archiveDir(ledgerPath);
  const archives = existsSync(dir)
    ? readdirSync(dir)
        .map((name) => ARCHIVE_NAME.exec(name))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => ({ chain: Number(m[1]), file: join(dir, m[0]), sealed: true }))
        .sort((a, b) => a.chain - b.chain)
    : [];
  const files: ChainFileRef[] = [...archives];
  const last = archives[archives.length - 1];
  if (existsSync(ledgerPath)) files.push({ chain: last === undefined ? 0 : last.chain + 1, file: ledgerPath, sealed: false });
  return files;
}

export interface LogFault extends ChainFileFault {
  /** Position in the whole log (all chains) where the fault sits. */
  readonly index: number;
}

export interface LocatedEntry {
  readonly index: number;
  readonly chain: number;
  readonly entry: ChainEntry;
}

export interface LogScan {
  readonly chains: readonly ChainFileScan[];
  /** Entries that verified, across all chains, before any fault. */
  readonly size: number;
  readonly lastHash: string | undefined;
  readonly fault: LogFault | undefined;
  /** An interrupted append at the end of the active file; its bytes are not part of the log. */
  readonly tornTail: TornTail | undefined;
  /** The RFC 6962 tree over every verified entry, when asked for. */
  readonly tree: MerkleTree | undefined;
  /** The entry at `options.entryAt`, when asked for and present. */
  readonly found: LocatedEntry | undefined;
}

export interface LogScanOptions {
  readonly tree?: boolean;
  readonly entryAt?: number;
  readonly onProgress?: (doneBytes: number, totalBytes: number) => void;
  /**
   * Threads to verify on, this one included (see SegmentPool); default: the cores available, up to
   * 8. 1 verifies on this thread alone. Worker threads are used for ledgers of MIN_PARALLEL_BYTES or
   * more (with a tree, they also hash the leaves), and change speed only, never a verdict or a message.
   */
  readonly threads?: number;
}

/** Verifies the chain of chains from the first genesis to the last entry. Read-only. */
export function scanLog(ledgerPath: string, options: LogScanOptions = {}): LogScan {
  const files = chainFiles(ledgerPath);
  const sizes = files.map((f) => statSync(f.file).size);
  const totalBytes = sizes.reduce((n, size) => n + size, 0);
  const report = options.onProgress;
  const onProgress = report === undefined ? undefined : (done: number): void => report(done, totalBytes);
  const threads = options.threads ?? defaultSegmentThreads();
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) {
    throw new RangeError(`threads must be a whole number from 1 to ${MAX_THREADS}, got ${String(threads)}`);
  }
  const pool =
    threads > 1 && totalBytes >= MIN_PARALLEL_BYTES
      ? SegmentPool.start(
          files.map((f, i) => ({ file: f.file, chain: f.chain, size: sizes[i] as number })),
          threads - 1,
          options.tree === true,
        )
      : undefined;
  try {
    return walkLog(files, options, onProgress, pool);
  } finally {
    pool?.finish();
  }
}

/**
 * Worker threads start for ledgers this large (about 75,000 entries) or more. A worker takes some
 * 40 ms to start and runs cold code at first; below this the walk alone is as fast (measured with
 * bench/ledger-verify.ts: break-even near 40 MiB on 2 cores, 1.3x at 80 MiB, 1.6x at 161 MiB,
 * 1.5x to 1.7x at 403 MiB).
 */
export const MIN_PARALLEL_BYTES = 32 * RANGE_BYTES;

function walkLog(
  files: readonly ChainFileRef[],
  options: LogScanOptions,
  onProgress: ((done: number) => void) | undefined,
  pool: SegmentPool | undefined,
): LogScan {
  const tree = options.tree === true ? new MerkleTree() : undefined;
  const chains: ChainFileScan[] = [];
  let size = 0;
  let doneBytes = 0;
  let continuesFrom: string | undefined;
  let found: LocatedEntry | undefined;
  const fail = (fault: ChainFileFault, lastHash = continuesFrom): LogScan => ({
    chains,
    size,
    lastHash,
    fault: { ...fault, index: size },
    tornTail: undefined,
    tree,
    found,
  });

  for (const [position, ref] of files.entries()) {
    if (ref.chain !== position) {
      return fail({ chain: position, seq: 0, reason: `archive for chain ${position} is missing`, file: ref.file, line: 0 });
    }
    const base = doneBytes;
    const sizeBefore = size;
    const entryAt = options.entryAt === undefined ? undefined : options.entryAt - sizeBefore;
    const scan = scanChainFile(ref.file, ref.chain, continuesFrom, {
      onEntry: tree === undefined ? undefined : (hash) => tree.append(entryLeafHash(hash)),
      onLeaves: tree === undefined ? undefined : (leaves) => tree.appendLeaves(leaves),
      entryAt,
      onBytes: onProgress === undefined ? undefined : (done) => onProgress(base + done),
      segments: pool?.sourceFor(position),
    });
    size += scan.entries;
    if (scan.found !== undefined) found = { index: sizeBefore + scan.found.seq, chain: ref.chain, entry: scan.found };
    chains.push(scan);
    doneBytes += statSync(ref.file).size;
    if (scan.fault !== undefined) return fail(scan.fault, scan.entries > 0 ? scan.lastHash : continuesFrom);
    const firstIndex = scan.genesis?.first_index;
    if (firstIndex !== undefined && firstIndex !== sizeBefore) {
      size = sizeBefore;
      const reason = `genesis says first_index ${String(firstIndex)}, but ${sizeBefore} entries precede it`;
      return fail({ chain: ref.chain, seq: 0, reason, file: ref.file, line: 1 });
    }
    continuesFrom = scan.lastHash;
    if (scan.tornTail !== undefined) {
      if (ref.sealed) {
        const seq = scan.entries;
        return fail({ chain: ref.chain, seq, reason: "sealed archive ends in an incomplete line", file: ref.file, line: seq + 1 });
      }
      return { chains, size, lastHash: continuesFrom, fault: undefined, tornTail: scan.tornTail, tree, found };
    }
  }
  return { chains, size, lastHash: continuesFrom, fault: undefined, tornTail: undefined, tree, found };
}
