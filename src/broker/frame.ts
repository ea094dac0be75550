/**
 * Response framing: a 4-byte big-endian length, then that many bytes of JSON. Zero-length frames and
 * frames over 16 MiB are protocol errors on both sides.
 */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export class FrameError extends Error {}

export function encodeFrame(json: string): Buffer {
  const length = Buffer.byteLength(json, "utf8");
  if (length === 0 || length > MAX_FRAME_BYTES) throw new FrameError(`frame length ${length} out of range`);
  const out = Buffer.allocUnsafe(4 + length);
  out.writeUInt32BE(length, 0);
  out.write(json, 4, "utf8");
  return out;
}

/**
 * Incremental decoder. `feed` hands each whole payload to a callback as a view that is only valid
 * during the call: frames that arrive whole inside one read are never copied, which matters when the
 * reads land in one reused buffer (net.Socket's `onread`). Only a frame split across reads is
 * assembled, in one buffer that grows to the largest frame seen.
 */
export class FrameDecoder {
  private acc: Buffer = Buffer.alloc(0);
  private accLen = 0;

  feed(chunk: Buffer, onFrame: (payload: Buffer) => void): void {
    let off = 0;
    if (this.accLen > 0) off = this.complete(chunk, onFrame);
    while (chunk.length - off >= 4) {
      const length = checkedLength(chunk.readUInt32BE(off));
      if (chunk.length - off - 4 < length) break;
      onFrame(chunk.subarray(off + 4, off + 4 + length));
      off += 4 + length;
    }
    // What is left is a header not yet whole, or a header checked above and part of its payload.
    if (off < chunk.length) this.append(chunk.subarray(off));
  }

  /** Convenience form returning copies of the payloads. */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    this.feed(chunk, (p) => frames.push(Buffer.from(p)));
    return frames;
  }

  /** Bytes received that do not yet form a whole frame (non-zero at end of stream means truncation). */
  get buffered(): number {
    return this.accLen;
  }

  // Adds bytes from `chunk` to the pending frame; returns how much of `chunk` was used.
  private complete(chunk: Buffer, onFrame: (payload: Buffer) => void): number {
    let used = 0;
    if (this.accLen < 4) {
      used = Math.min(4 - this.accLen, chunk.length);
      this.append(chunk.subarray(0, used));
      if (this.accLen < 4) return used;
    }
    const total = 4 + checkedLength(this.acc.readUInt32BE(0));
    const take = Math.min(total - this.accLen, chunk.length - used);
    this.append(chunk.subarray(used, used + take));
    used += take;
    if (this.accLen === total) {
      this.accLen = 0;
      onFrame(this.acc.subarray(4, total));
    }
    return used;
  }

  private append(bytes: Buffer): void {
    const need = this.accLen + bytes.length;
    if (need > this.acc.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, Math.min(this.acc.length * 2, MAX_FRAME_BYTES + 4)));
      this.acc.copy(grown, 0, 0, this.accLen);
      this.acc = grown;
    }
    bytes.copy(this.acc, this.accLen);
    this.accLen = need;
  }
}

function checkedLength(length: number): number {
  if (length === 0 || length > MAX_FRAME_BYTES) throw new FrameError(`frame length ${length} out of range`);
  return length;
}
