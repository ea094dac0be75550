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

/** Incremental decoder: feed it socket chunks, get back whole payloads. */
export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  push(chunk: Buffer): Buffer[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const frames: Buffer[] = [];
    if (this.pendingBytes < 4) return frames;
    let buf = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending, this.pendingBytes);
    let off = 0;
    while (buf.length - off >= 4) {
      const length = buf.readUInt32BE(off);
      if (length === 0 || length > MAX_FRAME_BYTES) throw new FrameError(`frame length ${length} out of range`);
      if (buf.length - off - 4 < length) break;
      frames.push(buf.subarray(off + 4, off + 4 + length));
      off += 4 + length;
    }
    buf = buf.subarray(off);
    this.pending = buf.length > 0 ? [buf] : [];
    this.pendingBytes = buf.length;
    return frames;
  }

  /** Bytes received that do not yet form a whole frame (non-zero at end of stream means truncation). */
  get buffered(): number {
    return this.pendingBytes;
  }
}
