/**
 * Splits an NDJSON byte stream into lines however the bytes arrive: a request line and a stdin message in
 * one read give two lines, a newline arriving alone in a later read ends the line before it (the
 * reference got both wrong). Blank lines are skipped, never taken as messages. A line over `maxLine`
 * bytes is reported once as overflow and its bytes are dropped, so a hostile peer cannot make us buffer
 * without bound.
 */
export type LineEvent = { kind: "line"; line: Buffer } | { kind: "overflow" };

export class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private discarding = false;

  constructor(private maxLine: number) {}

  /** Changes the limit for lines not yet begun (the request line and later messages have different ones). */
  setLimit(maxLine: number): void {
    this.maxLine = maxLine;
  }

  /** True while a line has started but its newline has not arrived. */
  get partial(): boolean {
    return this.partBytes > 0 || this.discarding;
  }

  push(chunk: Buffer): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) {
        this.append(chunk.subarray(start), events);
        return events;
      }
      this.append(chunk.subarray(start, nl), events);
      if (this.discarding) this.discarding = false;
      else if (this.partBytes > 0) {
        const line = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.partBytes);
        if (!isBlank(line)) events.push({ kind: "line", line });
      }
      this.parts = [];
      this.partBytes = 0;
      start = nl + 1;
    }
  }

  private append(piece: Buffer, events: LineEvent[]): void {
    if (piece.length === 0 || this.discarding) return;
    if (this.partBytes + piece.length > this.maxLine) {
      this.parts = [];
      this.partBytes = 0;
      this.discarding = true;
      events.push({ kind: "overflow" });
      return;
    }
    // Copy: the caller's chunk buffer may be reused by the stream.
    this.parts.push(Buffer.from(piece));
    this.partBytes += piece.length;
  }
}

function isBlank(line: Buffer): boolean {
  for (const b of line) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}
