import { closeSync, openSync, readSync } from "node:fs";
import { ChainVerifier } from "./chain-verifier.js";
import { readCanonicalLine } from "./entry-line.js";
import { type ChainSegment, lineAtOffset, walkLines } from "./line-walk.js";
import { HASH_SIZE, entryLeafHash } from "./merkle-hash.js";

/**
 * Verifies, on its own, the lines of a chain file owned by bytes [rangeStart, rangeEnd): those that
 * follow a newline in that range, so ranges that tile a file share out its lines (all but the
 * first, the genesis, which a walk from the start handles). The first line's seq and prevHash are
 * taken on trust; from there every line must be the next entry, with the same checks a full walk
 * makes. The run stops quietly at the first line that fails: whether that line is a fault, and how
 * to word it, is for the full walk to decide, which takes the segment only where the chain, checked
 * up to it, meets its first line exactly. Undefined when not even one line verifies. With
 * `withLeaves`, the segment also carries each entry's RFC 6962 leaf hash, for a walk building a tree.
 */
export function verifySegment(file: string, chain: number, rangeStart: number, rangeEnd: number, withLeaves = false): ChainSegment | undefined {
  const first = firstOwnedLine(file, rangeStart, rangeEnd);
  if (first === undefined) return undefined;
  const header = readCanonicalLine(first.text)?.header;
  if (header === undefined || header.seq === 0) return undefined;
  const verifier = ChainVerifier.midway(chain, header.seq, header.prevHash);
  const leaves = withLeaves ? new LeafList() : undefined;
  const onEntry = leaves === undefined ? undefined : (hash: string): void => leaves.add(entryLeafHash(hash));
  const walked = walkLines(file, {
    verifier,
    from: first.offset,
    until: rangeEnd,
    slowLine: (bytes, start, end) => {
      const fields = readCanonicalLine(bytes.toString("utf8", start, end));
      if (fields === undefined || verifier.accept(fields.header, fields.canonicalData) !== undefined) return false;
      onEntry?.(fields.header.hash);
      return true;
    },
    onEntry,
  });
  const count = verifier.count - header.seq;
  if (count === 0 || walked.lastLineStart === undefined) return undefined;
  return {
    leaves: leaves?.bytes(),
    start: first.offset,
    end: walked.position,
    firstSeq: header.seq,
    firstPrevHash: header.prevHash,
    count,
    lastHash: verifier.lastHash,
    lastLineStart: walked.lastLineStart,
  };
}

/** Leaf hashes one after another, in a buffer that doubles as it fills. */
class LeafList {
  // Never from the shared pool: the buffer is handed to another thread whole.
  private buffer = Buffer.allocUnsafeSlow(HASH_SIZE * 1024);
  private length = 0;

  add(leaf: Uint8Array): void {
    if (this.length + HASH_SIZE > this.buffer.length) {
      const grown = Buffer.allocUnsafeSlow(this.buffer.length * 2);
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.buffer.set(leaf, this.length);
    this.length += HASH_SIZE;
  }

  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

const PEEK = 64 * 1024;

/**
 * The first line that follows a newline in [rangeStart, rangeEnd): its offset and text (a prefix,
 * for a line longer than PEEK, which then gets no segment).
 */
function firstOwnedLine(file: string, rangeStart: number, rangeEnd: number): { offset: number; text: string } | undefined {
  const fd = openSync(file, "r");
  let offset: number | undefined;
  try {
    const chunk = Buffer.allocUnsafe(PEEK);
    for (let position = rangeStart; offset === undefined; ) {
      if (position >= rangeEnd) return undefined;
      const read = readSync(fd, chunk, 0, PEEK, position);
      const newline = chunk.subarray(0, read).indexOf(0x0a);
      if (newline === -1 && read < PEEK) return undefined;
      if (newline === -1) position += read;
      else if (position + newline >= rangeEnd) return undefined;
      else offset = position + newline + 1;
    }
  } finally {
    closeSync(fd);
  }
  return { offset, text: lineAtOffset(file, offset, PEEK) };
}
