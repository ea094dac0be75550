import type { ChainEntry, EntryData } from "./chain-entry.js";
import { type ChainFault, ChainVerifier } from "./chain-verifier.js";
import { type LineFields, parseEntryLine, readCanonicalLine } from "./entry-line.js";
import { type SegmentSource, lineAtOffset, walkLines } from "./line-walk.js";
import { HASH_SIZE } from "./merkle-hash.js";

export interface ChainFileFault extends ChainFault {
  readonly file: string;
  /** 1-based line number in the file. */
  readonly line: number;
}

/** Bytes after the last complete line: an append that a crash interrupted. */
export interface TornTail {
  readonly file: string;
  /** Where the complete entries end, and the file should be cut back to. */
  readonly offset: number;
  readonly bytes: number;
  /** seq of the last complete entry, if any. */
  readonly afterSeq: number | undefined;
}

export interface ChainFileScan {
  readonly chain: number;
  readonly file: string;
  readonly entries: number;
  readonly lastHash: string;
  readonly last: ChainEntry | undefined;
  /** Bytes of complete entry lines up to the fault or the torn tail (the whole file otherwise). */
  readonly completeBytes: number;
  readonly genesis: EntryData | undefined;
  readonly fault: ChainFileFault | undefined;
  readonly tornTail: TornTail | undefined;
  /** The verified entry at `options.entryAt`, when asked for and present. */
  readonly found: ChainEntry | undefined;
}

export interface ChainFileScanOptions {
  /** Sees the hash of each entry that verified, in order. */
  readonly onEntry?: (hash: string) => void;
  /** The seq of an entry to hand back whole in `found`. */
  readonly entryAt?: number;
  readonly onBytes?: (done: number) => void;
  /**
   * Verified segments of this file, to take whole. With onEntry given, only segments that carry
   * their leaf hashes are taken, which go to onLeaves in place of onEntry's calls.
   */
  readonly segments?: SegmentSource | undefined;
  readonly onLeaves?: (leaves: Uint8Array) => void;
}

/**
 * Verifies one chain file from its genesis, stopping at the first fault. Lines are first read in
 * place from the file's bytes (ChainVerifier.acceptRun); any line that path does not vouch for is
 * decoded and judged by the text reader and ChainVerifier.accept, which also word every fault, so the
 * fast path changes speed only, never a verdict or a message. Verified segments (from worker
 * threads, see SegmentPool) are taken whole where the chain, checked up to them, meets them exactly.
 */
export function scanChainFile(
  file: string,
  chain: number,
  continuesFrom: string | undefined | "unchecked",
  options: ChainFileScanOptions = {},
): ChainFileScan {
  const { onEntry, entryAt = -1 } = options;
  const verifier = new ChainVerifier(chain, continuesFrom);
  let fault: ChainFileFault | undefined;
  let genesis: EntryData | undefined;
  let found: ChainEntry | undefined;

  /** Judges a line by the text path; false when it is the fault. */
  const slowLine = (bytes: Buffer, start: number, end: number): boolean => {
    const text = bytes.toString("utf8", start, end);
    const fields = readCanonicalLine(text) ?? slowRead(text);
    let chainFault =
      typeof fields === "string" ? verifier.unreadable(`unreadable entry: ${fields}`) : verifier.accept(fields.header, fields.canonicalData);
    if (chainFault !== undefined || typeof fields === "string") {
      // The fast readers only cut the hash fields out; a line that is not even a well-formed entry
      // is reported as such rather than as a mismatch.
      const reread = slowRead(text);
      if (typeof reread === "string") chainFault = verifier.unreadable(`unreadable entry: ${reread}`);
      fault = { ...(chainFault as ChainFault), file, line: verifier.count + 1 };
      return false;
    }
    if (fields.header.seq === 0) genesis = JSON.parse(fields.canonicalData) as EntryData;
    if (fields.header.seq === entryAt) found = entryOf(text);
    onEntry?.(fields.header.hash);
    return true;
  };

  const walked = walkLines(file, {
    verifier,
    from: 0,
    until: Number.POSITIVE_INFINITY,
    slowLine,
    onEntry,
    stopSeq: entryAt,
    segments: usableSegments(options, entryAt),
    onSegment: options.onLeaves === undefined ? undefined : (segment) => options.onLeaves?.(segment.leaves as Uint8Array),
    onBytes: options.onBytes,
  });
  const completeBytes = walked.position;
  const tornTail: TornTail | undefined =
    fault === undefined && walked.tornBytes > 0
      ? { file, offset: completeBytes, bytes: walked.tornBytes, afterSeq: verifier.count === 0 ? undefined : verifier.count - 1 }
      : undefined;
  if (fault === undefined && tornTail === undefined && verifier.count === 0) {
    fault = { ...verifier.unreadable("chain file holds no entries"), file, line: 1 };
  }
  const last = walked.lastLineStart === undefined ? undefined : lastEntry(file, walked.lastLineStart, verifier.lastHash);
  return { chain, file, entries: verifier.count, lastHash: verifier.lastHash, last, completeBytes, genesis, fault, tornTail, found };
}

/**
 * The segments the walk may take: none that holds the entry asked for, which the text path reads,
 * and, when each entry's hash is wanted, only those that bring their leaf hashes along.
 */
function usableSegments(options: ChainFileScanOptions, entryAt: number): SegmentSource | undefined {
  const source = options.segments;
  if (source === undefined) return undefined;
  const needLeaves = options.onEntry !== undefined;
  if (needLeaves && options.onLeaves === undefined) return undefined;
  if (!needLeaves && entryAt < 0) return source;
  return {
    nextStop: (position) => source.nextStop(position),
    at: (position) => {
      const s = source.at(position);
      if (s === undefined || (needLeaves && s.leaves?.length !== s.count * HASH_SIZE)) return undefined;
      return entryAt >= s.firstSeq && entryAt < s.firstSeq + s.count ? undefined : s;
    },
  };
}

/**
 * The last accepted entry, read again from the file: the walk keeps no line's bytes. A line that is
 * not the one the walk accepted there means the file was rewritten meanwhile.
 */
function lastEntry(file: string, offset: number, lastHash: string): ChainEntry {
  const line = lineAtOffset(file, offset);
  const parsed = parseEntryLine(line);
  if (!parsed.ok || parsed.entry.hash !== lastHash) throw new Error(`${file} changed while it was being verified`);
  return parsed.entry;
}

/** The entry on a line that verified: such a line is exactly encodeEntryLine(entry), so parsing it rebuilds the entry. */
function entryOf(line: string): ChainEntry {
  const { seq, type, data, prevHash, hash } = JSON.parse(line) as ChainEntry;
  return { seq, type, data, prevHash, hash };
}

/** A line the fast reader refused: parse it fully, for its entry or the precise reason it is bad. */
function slowRead(line: string): LineFields | string {
  const parsed = parseEntryLine(line);
  return parsed.ok ? { header: parsed.entry, canonicalData: parsed.canonicalData } : parsed.reason;
}
