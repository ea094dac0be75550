/**
 * Finds the end of the request as it arrives. A request is one JSON object: it is complete the moment
 * its closing brace arrives, newline or not, because the reference wrapper sends `--admin` requests
 * with no newline and then waits for the answer without closing its side. Anything that does not start
 * with `{` is taken up to the end of its line (and then refused as invalid JSON). Blank space before the
 * request is skipped. Bytes after the request are handed back: they are the first client messages.
 *
 * The scanner only tracks nesting, strings and escapes; whether the bytes are valid JSON is decided by
 * the parser afterwards.
 */
export type ScanResult =
  | { readonly kind: "partial" }
  | { readonly kind: "complete"; readonly request: Buffer; readonly rest: Buffer }
  | { readonly kind: "overflow" };

const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

export class RequestScanner {
  private readonly parts: Buffer[] = [];
  private bytes = 0;
  private started = false;
  private object = false;
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly maxBytes: number) {}

  /** Bytes of the request received so far (leading blank space not counted). */
  get received(): number {
    return this.bytes;
  }

  push(chunk: Buffer): ScanResult {
    let i = 0;
    if (!this.started) {
      while (i < chunk.length && isSpace(chunk[i] as number)) i++;
      if (i === chunk.length) return { kind: "partial" };
      this.started = true;
      this.object = chunk[i] === LBRACE;
    }
    const begin = i;
    for (; i < chunk.length; i++) {
      const b = chunk[i] as number;
      if (!this.object) {
        if (b === NEWLINE) return this.complete(chunk, begin, i, i + 1);
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) this.inString = false;
      } else if (b === QUOTE) this.inString = true;
      else if (b === LBRACE || b === LBRACKET) this.depth++;
      else if (b === RBRACE || b === RBRACKET) {
        this.depth--;
        if (this.depth === 0) return this.complete(chunk, begin, i + 1, i + 1);
      }
    }
    return this.keep(chunk.subarray(begin));
  }

  /** What has arrived of an unfinished request, for when the stream ends before it is complete. */
  takePartial(): Buffer {
    return Buffer.concat(this.parts, this.bytes);
  }

  private keep(piece: Buffer): ScanResult {
    if (this.bytes + piece.length > this.maxBytes) return { kind: "overflow" };
    // Copy: the reader's buffer is reused for the next read.
    this.parts.push(Buffer.from(piece));
    this.bytes += piece.length;
    return { kind: "partial" };
  }

  private complete(chunk: Buffer, begin: number, end: number, restStart: number): ScanResult {
    if (this.bytes + (end - begin) > this.maxBytes) return { kind: "overflow" };
    this.parts.push(chunk.subarray(begin, end));
    const request = Buffer.concat(this.parts, this.bytes + (end - begin));
    return { kind: "complete", request, rest: Buffer.from(chunk.subarray(restStart)) };
  }
}
