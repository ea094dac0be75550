import { closeSync, openSync, readSync } from "node:fs";
import { ChainVerifier } from "./chain-verifier.js";
import { readCanonicalLine } from "./entry-line.js";
import { type ChainSegment, walkLines } from "./line-walk.js";

/**
 * Verifies, on its own, the lines of a chain file owned by bytes [rangeStart, rangeEnd): those that
 * follow a newline in that range, so ranges that tile a file share out its lines (all but the
 * first, the genesis, which a walk from the start handles). The first line's seq and prevHash are
 * taken on trust; from there every line must be the next entry, with the same checks a full walk
 * makes. The run stops quietly at the first line that fails: whether that line is a fault, and how
 * to word it, is for the full walk to decide, which takes the segment only where the chain, checked
 * up to it, meets its first line exactly. Undefined when not even one line verifies.
 */
export function verifySegment(file: string, chain: number, rangeStart: number, rangeEnd: number): ChainSegment | undefined {
  const first = firstOwnedLine(file, rangeStart, rangeEnd);
  if (first === undefined) return undefined;
  const header = readCanonicalLine(first.text)?.header;
  if (header === undefined || header.seq === 0) return undefined;
  const verifier = ChainVerifier.midway(chain, header.seq, header.prevHash);
  const walked = walkLines(file, {
    verifier,
    from: first.offset,
    until: rangeEnd,
    slowLine: (bytes, start, end) => {
      const fields = readCanonicalLine(bytes.toString("utf8", start, end));
      return fields !== undefined && verifier.accept(fields.header, fields.canonicalData) === undefined;
    },
  });
  const count = verifier.count - header.seq;
  if (count === 0 || walked.lastLineStart === undefined) return undefined;
  return {
    start: first.offset,
    end: walked.position,
    firstSeq: header.seq,
    firstPrevHash: header.prevHash,
    count,
    lastHash: verifier.lastHash,
    lastLineStart: walked.lastLineStart,
  };
}

const PEEK = 64 * 1024;

/** The first line that follows a newline in [rangeStart, rangeEnd): its offset and text (a prefix, for a very long line). */
function firstOwnedLine(file: string, rangeStart: number, rangeEnd: number): { offset: number; text: string } | undefined {
  const fd = openSync(file, "r");
  try {
    let position = rangeStart;
    for (;;) {
      if (position >= rangeEnd) return undefined;
      const chunk = Buffer.allocUnsafe(PEEK);
      const read = readSync(fd, chunk, 0, PEEK, position);
      const newline = chunk.subarray(0, read).indexOf(0x0a);
      if (newline === -1) {
        if (read < PEEK) return undefined;
        position += read;
        continue;
      }
      if (position + newline >= rangeEnd) return undefined;
      const offset = position + newline + 1;
      const lineRead = readSync(fd, chunk, 0, PEEK, offset);
      const end = chunk.subarray(0, lineRead).indexOf(0x0a);
      return { offset, text: chunk.toString("utf8", 0, end === -1 ? lineRead : end) };
    }
  } finally {
    closeSync(fd);
  }
}
