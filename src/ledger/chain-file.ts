import type { ChainEntry, EntryData, EntryHeader } from "./chain-entry.js";
import { type ChainFault, ChainVerifier } from "./chain-verifier.js";
import { type LineFields, parseEntryLine, readCanonicalLine } from "./entry-line.js";
import { scanLines } from "./line-reader.js";

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
}

/**
 * Verifies one chain file from its genesis, stopping at the first fault. `onEntry` sees each entry
 * that verified, in order, as its header and the canonical JSON text of its data.
 */
export function scanChainFile(
  file: string,
  chain: number,
  continuesFrom: string | undefined | "unchecked",
  onEntry?: (header: EntryHeader, canonicalData: string) => void,
  onBytes?: (done: number) => void,
): ChainFileScan {
  const verifier = new ChainVerifier(chain, continuesFrom);
  let fault: ChainFileFault | undefined;
  let genesis: EntryData | undefined;
  let last: LineFields | undefined;
  let completeBytes = 0;
  let lineNo = 0;
  const lines = scanLines(
    file,
    (text, offset) => {
      lineNo++;
      const fields = readCanonicalLine(text) ?? slowRead(text);
      let chainFault =
        typeof fields === "string" ? verifier.unreadable(`unreadable entry: ${fields}`) : verifier.accept(fields.header, fields.canonicalData);
      if (chainFault !== undefined) {
        // The fast reader only cut the hash fields out; a line that is not even a well-formed entry
        // is reported as such rather than as a mismatch.
        const reread = slowRead(text);
        if (typeof reread === "string") chainFault = verifier.unreadable(`unreadable entry: ${reread}`);
        fault = { ...chainFault, file, line: lineNo };
        completeBytes = offset;
        return false;
      }
      if (typeof fields === "string") return false;
      if (fields.header.seq === 0) genesis = JSON.parse(fields.canonicalData) as EntryData;
      last = fields;
      onEntry?.(fields.header, fields.canonicalData);
      return true;
    },
    onBytes,
  );
  if (fault === undefined) completeBytes = lines.completeBytes;
  const tornBytes = lines.totalBytes - lines.completeBytes;
  const tornTail: TornTail | undefined =
    fault === undefined && tornBytes > 0
      ? { file, offset: lines.completeBytes, bytes: tornBytes, afterSeq: verifier.count === 0 ? undefined : verifier.count - 1 }
      : undefined;
  if (fault === undefined && tornTail === undefined && verifier.count === 0) {
    fault = { ...verifier.unreadable("chain file holds no entries"), file, line: 1 };
  }
  const lastEntry: ChainEntry | undefined =
    last === undefined ? undefined : { ...last.header, data: JSON.parse(last.canonicalData) as EntryData };
  return { chain, file, entries: verifier.count, lastHash: verifier.lastHash, last: lastEntry, completeBytes, genesis, fault, tornTail };
}

/** A line the fast reader refused: parse it fully, for its entry or the precise reason it is bad. */
function slowRead(line: string): LineFields | string {
  const parsed = parseEntryLine(line);
  return parsed.ok ? { header: parsed.entry, canonicalData: parsed.canonicalData } : parsed.reason;
}
