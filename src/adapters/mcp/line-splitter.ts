/**
 * The MCP stdio transport's framing: one JSON-RPC message per line, lines ended by `\n` (a `\r`
 * before it is tolerated). Chunks are kept as they arrive and joined once per line, so a line of
 * many megabytes costs one copy, not one per chunk.
 */
export type SplitEvent = { readonly kind: "line"; readonly bytes: Buffer } | { readonly kind: "oversize"; readonly bytes: number };

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** The current line passed the limit: its bytes are dropped up to the next newline. */
  private discarding = false;

  constructor(private readonly maxLineBytes: number) {}

  /** The complete lines in `chunk` (with what came before it); empty lines are not messages. */
  push(chunk: Buffer): SplitEvent[] {
    const out: SplitEvent[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) {
        this.keep(chunk.subarray(start));
        return out;
      }
      this.keep(chunk.subarray(start, nl));
      this.endLine(out);
      start = nl + 1;
    }
  }

  /** The stream ended: a last line without its newline is still a line. */
  end(): SplitEvent[] {
    const out: SplitEvent[] = [];
    if (this.size > 0 || this.discarding) this.endLine(out);
    return out;
  }

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    this.size += part.length;
    if (this.discarding) return;
    if (this.size > this.maxLineBytes) {
      this.discarding = true;
      this.parts = [];
      return;
    }
    this.parts.push(part);
  }

  private endLine(out: SplitEvent[]): void {
    if (this.discarding) {
      out.push({ kind: "oversize", bytes: this.size });
    } else if (this.size > 0) {
      let line = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.size);
      if (line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
      if (line.length > 0 && !isBlank(line)) out.push({ kind: "line", bytes: line });
    }
    this.parts = [];
    this.size = 0;
    this.discarding = false;
  }
}

function isBlank(line: Buffer): boolean {
  for (const byte of line) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  return true;
}
