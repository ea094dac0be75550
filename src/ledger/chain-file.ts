import { closeSync, openSync, readSync } from "node:fs";
import type { ChainEntry, EntryData } from "./chain-entry.js";
import { type ChainFault, ChainVerifier } from "./chain-verifier.js";
import { type LineFields, parseEntryLine, readCanonicalLine } from "./entry-line.js";
import { LineLayout } from "./line-layout.js";

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
}

/**
 * Verifies one chain file from its genesis, stopping at the first fault. Lines are first read in
 * place from the file's bytes (ChainVerifier.acceptRun); any line that path does not vouch for is
 * decoded and judged by the text reader and ChainVerifier.accept, which also word every fault, so the
 * fast path changes speed only, never a verdict or a message.
 */
export function scanChainFile(
  file: string,
  chain: number,
  continuesFrom: string | undefined | "unchecked",
  options: ChainFileScanOptions = {},
): ChainFileScan {
  const { onEntry, entryAt = -1 } = options;
  const verifier = new ChainVerifier(chain, continuesFrom);
  const layout = new LineLayout();
  let fault: ChainFileFault | undefined;
  let genesis: EntryData | undefined;
  let found: ChainEntry | undefined;
  // The last verified line, kept as a place in its (never reused) chunk until the end.
  let lastBytes: Buffer | undefined;
  let lastStart = 0;
  let completeBytes = 0;
  let tornBytes = 0;

  /** Judges the line at [start, end) of `bytes` by the text path; false when it is the fault. */
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
    lastBytes = bytes;
    lastStart = start;
    if (fields.header.seq === entryAt) found = entryOf(text);
    onEntry?.(fields.header.hash);
    return true;
  };

  const fd = openSync(file, "r");
  try {
    let position = 0;
    let want = CHUNK;
    for (;;) {
      const chunk = Buffer.allocUnsafeSlow(want);
      const read = readSync(fd, chunk, 0, want, position);
      if (read === 0) break;
      const bytes = read === want ? chunk : chunk.subarray(0, read);
      let at = 0;
      for (;;) {
        const before = verifier.count;
        at = verifier.acceptRun(bytes, at, bytes.length, layout, onEntry, entryAt);
        if (verifier.count !== before) {
          lastBytes = bytes;
          lastStart = verifier.lastLineStart;
        }
        const newline = bytes.indexOf(0x0a, at);
        if (newline === -1) break;
        if (!slowLine(bytes, at, newline)) {
          completeBytes = position + at;
          break;
        }
        at = newline + 1;
      }
      if (fault !== undefined) break;
      position += at;
      options.onBytes?.(position);
      if (read < want) {
        // The end of the file: what is left has no newline, an append a crash cut short.
        tornBytes = read - at;
        break;
      }
      // A line longer than a chunk: read more of it at once.
      want = at === 0 ? want * 2 : CHUNK;
    }
    if (fault === undefined) completeBytes = position;
  } finally {
    closeSync(fd);
  }
  const tornTail: TornTail | undefined =
    fault === undefined && tornBytes > 0
      ? { file, offset: completeBytes, bytes: tornBytes, afterSeq: verifier.count === 0 ? undefined : verifier.count - 1 }
      : undefined;
  if (fault === undefined && tornTail === undefined && verifier.count === 0) {
    fault = { ...verifier.unreadable("chain file holds no entries"), file, line: 1 };
  }
  const last = lastBytes === undefined ? undefined : entryOf(lineText(lastBytes, lastStart));
  return { chain, file, entries: verifier.count, lastHash: verifier.lastHash, last, completeBytes, genesis, fault, tornTail, found };
}

const CHUNK = 1 << 20;

/** The text of the line that starts at `start`, without its newline. */
function lineText(bytes: Buffer, start: number): string {
  return bytes.toString("utf8", start, bytes.indexOf(0x0a, start));
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
