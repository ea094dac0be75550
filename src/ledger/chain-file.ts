import type { ChainEntry, EntryData } from "./chain-entry.js";
import { type ChainFault, ChainVerifier } from "./chain-verifier.js";
import { parseEntryLine } from "./entry-line.js";
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
 * that verified, in order.
 */
export function scanChainFile(
  file: string,
  chain: number,
  continuesFrom: string | undefined | "unchecked",
  onEntry?: (entry: ChainEntry) => void,
  onBytes?: (done: number) => void,
): ChainFileScan {
  const verifier = new ChainVerifier(chain, continuesFrom);
  let fault: ChainFileFault | undefined;
  let genesis: EntryData | undefined;
  let last: ChainEntry | undefined;
  let completeBytes = 0;
  let lineNo = 0;
  const lines = scanLines(
    file,
    ({ text, offset }) => {
      lineNo++;
      const parsed = parseEntryLine(text);
      const chainFault = parsed.ok
        ? verifier.accept(parsed.entry, parsed.canonicalData)
        : verifier.unreadable(`unreadable entry: ${parsed.reason}`);
      if (chainFault !== undefined) {
        fault = { ...chainFault, file, line: lineNo };
        completeBytes = offset;
        return false;
      }
      if (parsed.ok) {
        if (parsed.entry.seq === 0) genesis = parsed.entry.data;
        last = parsed.entry;
        onEntry?.(parsed.entry);
      }
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
  return { chain, file, entries: verifier.count, lastHash: verifier.lastHash, last, completeBytes, genesis, fault, tornTail };
}
