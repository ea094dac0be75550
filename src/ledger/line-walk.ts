import { closeSync, openSync, readSync } from "node:fs";
import type { ChainVerifier } from "./chain-verifier.js";
import { LineLayout } from "./line-layout.js";

/**
 * A run of consecutive lines of one chain file that verified on their own, trusting only the first
 * line's seq and prevHash (see verifySegment). A walk that stands at `start` with exactly that seq
 * and prevHash due may take the whole run as accepted: line by line it would accept the same lines
 * with the same results, since every check it makes was made.
 */
export interface ChainSegment {
  /** File offset of the first line, and of the byte after the last line's newline. */
  readonly start: number;
  readonly end: number;
  readonly firstSeq: number;
  readonly firstPrevHash: string;
  readonly count: number;
  readonly lastHash: string;
  /** File offset of the last line. */
  readonly lastLineStart: number;
  /** When asked for: the RFC 6962 leaf hash of each entry, 32 bytes each, in order. */
  readonly leaves?: Uint8Array | undefined;
}

/** Where a walk may find verified segments, asked as it goes, for a source that fills while it walks. */
export interface SegmentSource {
  /** The first offset at or after `position` where a segment may start: the fast path stops there to ask. */
  nextStop(position: number): number;
  /** A segment that starts at `position`, if one is there. */
  at(position: number): ChainSegment | undefined;
}

/** A source of segments known in advance. */
export function segmentList(segments: readonly ChainSegment[]): SegmentSource {
  const starts = segments.map((s) => s.start).sort((a, b) => a - b);
  const byStart = new Map(segments.map((s) => [s.start, s]));
  return {
    nextStop: (position) => starts.find((start) => start >= position) ?? Number.POSITIVE_INFINITY,
    at: (position) => byStart.get(position),
  };
}

export interface WalkOptions {
  readonly verifier: ChainVerifier;
  /** File offset of the first line. */
  readonly from: number;
  /** The last file offset at which a line is walked; lines starting after it are left alone. */
  readonly until: number;
  /**
   * Judges a line the fast path did not accept (bytes [start, end), without its newline; the bytes
   * are reused once the call returns); false stops the walk there.
   */
  readonly slowLine: (bytes: Buffer, start: number, end: number) => boolean;
  readonly onEntry?: ((hash: string) => void) | undefined;
  /** The seq of an entry the fast path leaves to slowLine, which hands it back whole. */
  readonly stopSeq?: number;
  /** Verified segments, to take whole where the walk meets them. */
  readonly segments?: SegmentSource | undefined;
  /** Hears each segment the walk takes, where onEntry would have heard each of its entries. */
  readonly onSegment?: ((segment: ChainSegment) => void) | undefined;
  readonly onBytes?: ((done: number) => void) | undefined;
}

export interface WalkEnd {
  /** File offset just after the last accepted line: where the walk stopped (at a line slowLine refused, or the end). */
  readonly position: number;
  /** At the end of the file, the bytes after the last newline: an append a crash cut short. */
  readonly tornBytes: number;
  /** File offset of the last accepted line, if any. */
  readonly lastLineStart: number | undefined;
}

const CHUNK = 1 << 20;
const TAIL = 64 * 1024;

// One buffer per thread, reused by every walk: a fresh megabyte per chunk costs page faults and
// collector work, measurably so with two threads verifying side by side. A walk is never re-entered
// (nothing it calls walks), and the bytes it hands to slowLine are valid only during that call.
let chunkBuffer = Buffer.allocUnsafeSlow(0);

function chunkOf(size: number): Buffer {
  if (chunkBuffer.length < size) chunkBuffer = Buffer.allocUnsafeSlow(Math.max(size, CHUNK + TAIL));
  return chunkBuffer;
}

/**
 * Walks the lines of a chain file from `from`, a chunk at a time: the fast path (acceptRun) takes
 * every line it vouches for, slowLine decides on the rest, and a verified segment that starts where
 * the walk stands is taken whole. The fast path pauses wherever a segment may start, to ask.
 */
export function walkLines(file: string, o: WalkOptions): WalkEnd {
  const { verifier, until, stopSeq = -1, segments } = o;
  const layout = new LineLayout();
  const fd = openSync(file, "r");
  let position = o.from;
  // When a line did not fit in the last read from here: how much to read this time.
  let grow = 0;
  let tornBytes = 0;
  let lastOffset = -1;

  /** Takes the segment that starts at `at`, if there is one and it fits; true when taken. */
  const takeSegment = (at: number): boolean => {
    const here = segments?.at(at);
    if (here === undefined || here.start !== at || here.lastLineStart > until) return false;
    if (!verifier.skip(here.firstSeq, here.firstPrevHash, here.count, here.lastHash)) return false;
    o.onSegment?.(here);
    lastOffset = here.lastLineStart;
    position = here.end;
    o.onBytes?.(position);
    return true;
  };
  /** Where in a chunk read at `position` the fast path next pauses, the chunk's end at the latest. */
  const pauseAfter = (at: number, length: number): number => {
    const stop = segments === undefined ? Number.POSITIVE_INFINITY : segments.nextStop(position + at + 1) - position;
    return Math.min(length, stop, until - position + 1);
  };

  try {
    walk: for (;;) {
      if (position > until) break;
      if (takeSegment(position)) {
        grow = 0;
        continue;
      }
      // A chunk, but not much past the last line to walk: a little, where that line most likely ends.
      const size = grow > 0 ? grow : Math.min(CHUNK, until - position + 1 + TAIL);
      const chunk = chunkOf(size);
      const read = readSync(fd, chunk, 0, size, position);
      if (read === 0) break;
      const bytes = read === chunk.length ? chunk : chunk.subarray(0, read);
      let at = 0;
      let pause = pauseAfter(0, bytes.length);
      for (;;) {
        const before = verifier.count;
        at = verifier.acceptRun(bytes, at, pause, layout, o.onEntry, stopSeq);
        if (verifier.count !== before) lastOffset = position + verifier.lastLineStart;
        if (at >= pause) {
          // Past the last line to walk, or at the end of the chunk: the outer loop goes on from here.
          if (position + at > until || at >= bytes.length) {
            position += at;
            grow = 0;
            o.onBytes?.(position);
            continue walk;
          }
          // Where a segment may start: take it, or go on to the next such place.
          if (takeSegment(position + at)) {
            grow = 0;
            continue walk;
          }
          pause = pauseAfter(at, bytes.length);
          continue;
        }
        const newline = bytes.indexOf(0x0a, at);
        if (newline === -1) break;
        if (!o.slowLine(bytes, at, newline)) {
          position += at;
          break walk;
        }
        lastOffset = position + at;
        at = newline + 1;
      }
      position += at;
      o.onBytes?.(position);
      if (read < size) {
        tornBytes = read - at;
        break;
      }
      // A line longer than what was read: read twice as much of it next time.
      grow = at === 0 ? size * 2 : 0;
    }
  } finally {
    closeSync(fd);
  }
  return { position, tornBytes, lastLineStart: lastOffset < 0 ? undefined : lastOffset };
}

/**
 * The text of the line that starts at file offset `offset`, without its newline (or up to the end of
 * the file), or its first `limit` bytes or so when it is longer.
 */
export function lineAtOffset(file: string, offset: number, limit = Number.POSITIVE_INFINITY): string {
  const fd = openSync(file, "r");
  try {
    const parts: Buffer[] = [];
    for (let position = offset; ; ) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const read = readSync(fd, chunk, 0, chunk.length, position);
      const newline = chunk.subarray(0, read).indexOf(0x0a);
      parts.push(chunk.subarray(0, newline === -1 ? read : newline));
      position += read;
      if (newline !== -1 || read === 0 || position - offset >= limit) return Buffer.concat(parts).toString("utf8");
    }
  } finally {
    closeSync(fd);
  }
}
