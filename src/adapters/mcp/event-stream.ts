/**
 * A `text/event-stream` body read as the HTML standard's server-sent events parser reads it: lines
 * end at CRLF, LF or CR (also split across chunks); a blank line dispatches the event; `data`
 * lines join with LF; a line starting with `:` is a comment; a field's value loses one leading
 * space; an unknown field is ignored; an event the stream ends before its blank line is dropped.
 * Lines are split on bytes (CR and LF never occur inside a UTF-8 sequence) and decoded whole,
 * so a character split across chunks is never mangled.
 *
 * Bounded: an event whose lines hold more than `maxEventBytes` is not kept; it is reported by
 * its size when its blank line comes, and no more of it than the bound is held meanwhile.
 */
export type StreamEvent = { readonly kind: "event"; readonly type: string; readonly data: string; readonly id: string | null } | { readonly kind: "oversize"; readonly bytes: number };

const LF = 0x0a;
const CR = 0x0d;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export class EventStreamParser {
  /** The current line's bytes, before its end is seen. */
  private line: Buffer[] = [];
  private lineBytes = 0;
  /** A CR ended the last chunk: an LF opening the next one belongs to it. */
  private afterCR = false;
  /** The stream's first bytes, until it is known whether they are a byte-order mark. */
  private head: Buffer | null = Buffer.alloc(0);
  private data: string[] = [];
  private type = "";
  private lastId: string | null = null;
  /** Bytes of the event so far; past the bound the event is counted, not kept. */
  private eventBytes = 0;

  constructor(private readonly maxEventBytes: number) {}

  push(chunk: Uint8Array): StreamEvent[] {
    let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.head !== null) {
      const head = Buffer.concat([this.head, bytes]);
      if (head.length < BOM.length && BOM.subarray(0, head.length).equals(head)) {
        this.head = head;
        return [];
      }
      this.head = null;
      bytes = head.subarray(0, BOM.length).equals(BOM) ? head.subarray(BOM.length) : head;
    }
    const out: StreamEvent[] = [];
    let start = 0;
    if (this.afterCR && bytes[0] === LF) start = 1;
    this.afterCR = false;
    for (let i = start; i < bytes.length; i++) {
      const byte = bytes[i];
      if (byte !== LF && byte !== CR) continue;
      this.take(bytes.subarray(start, i));
      this.endLine(out);
      if (byte === CR) {
        if (i + 1 === bytes.length) this.afterCR = true;
        else if (bytes[i + 1] === LF) i++;
      }
      start = i + 1;
    }
    this.take(bytes.subarray(start));
    return out;
  }

  /** The stream ended: an event without its blank line is dropped, as the standard says. */
  end(): StreamEvent[] {
    this.line = [];
    this.lineBytes = 0;
    this.data = [];
    this.type = "";
    this.eventBytes = 0;
    return [];
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    this.lineBytes += part.length;
    // Past the bound the line's bytes are only counted: the event will be reported by its size.
    if (this.eventBytes + this.lineBytes <= this.maxEventBytes) this.line.push(Buffer.from(part));
  }

  private endLine(out: StreamEvent[]): void {
    const size = this.lineBytes;
    const kept = this.eventBytes + size <= this.maxEventBytes;
    const text = kept ? Buffer.concat(this.line).toString("utf8") : null;
    this.line = [];
    this.lineBytes = 0;
    if (size === 0) {
      this.dispatch(out);
      return;
    }
    this.eventBytes += size;
    if (text === null) {
      this.data = [];
      return;
    }
    if (text.startsWith(":")) return;
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.type = value;
    else if (field === "id" && !value.includes("\0")) this.lastId = value;
    // `retry` and unknown fields: nothing this reader does depends on them.
  }

  private dispatch(out: StreamEvent[]): void {
    const bytes = this.eventBytes;
    const data = this.data;
    const type = this.type;
    this.data = [];
    this.type = "";
    this.eventBytes = 0;
    if (bytes > this.maxEventBytes) {
      out.push({ kind: "oversize", bytes });
      return;
    }
    if (data.length === 0) return;
    out.push({ kind: "event", type: type === "" ? "message" : type, data: data.join("\n"), id: this.lastId });
  }
}
