import { isAsciiCanonicalObject } from "./canonical-bytes-check.js";
import { ENTRY_TYPES, type EntryType } from "./chain-entry.js";

/**
 * Where the fields of an entry line sit in the bytes that hold it. One instance is reused for every
 * line of a scan, so reading a line allocates nothing.
 */
export class LineLayout {
  seq = 0;
  type: EntryType = "GENESIS";
  dataStart = 0;
  dataEnd = 0;
  hashAt = 0;
  prevHashAt = 0;
  seqAt = 0;
  seqEnd = 0;
  typeAt = 0;
  typeEnd = 0;
}

/** Fixed text of a line, as big-endian 32-bit words and the bytes left over, to compare four bytes at a time. */
class Mark {
  readonly length: number;
  readonly words: readonly number[];
  readonly tail: readonly number[];
  constructor(text: string) {
    const b = Buffer.from(text, "latin1");
    const whole = b.length - (b.length % 4);
    this.length = b.length;
    this.words = Array.from({ length: whole / 4 }, (_, i) => b.readUInt32BE(i * 4));
    this.tail = [...b.subarray(whole)];
  }
}

const DATA_PREFIX = new Mark('{"data":');
const HASH_MARK = new Mark(',"hash":"');
const PREV_MARK = new Mark('","prevHash":"');
const SEQ_MARK = new Mark(',"seq":');
const TYPE_MARK = new Mark(',"type":"');
/** Entry types by their first four letters (every type has at least four). */
const TYPES = new Map(ENTRY_TYPES.map((type) => [Buffer.from(type, "latin1").readUInt32BE(0), { type, mark: new Mark(type) }]));
const HEX_LENGTH = 64;
// Longer seq texts exist only past 10^15 entries; the text reader still takes them.
const MAX_SEQ_DIGITS = 15;

/**
 * Reads bytes [start, end) as a line laid out exactly as encodeEntryLine writes it, in ASCII, with
 * data that is canonical JSON: `{"data":D,"hash":"H","prevHash":"P","seq":N,"type":"T"}`. The two
 * hash fields are only located (64 bytes each), not checked for form: the verifier compares both
 * with hex hashes it holds. False for any other line, which the text reader then decides on.
 */
export function readLineLayout(b: Buffer, start: number, end: number, out: LineLayout): boolean {
  if (b !== viewed) {
    viewed = b;
    view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  if (start < 0 || end > b.length || b[end - 1] !== 0x7d || b[end - 2] !== 0x22 || !matches(b, start, DATA_PREFIX)) return false;
  let k = end - 3;
  while (k > start && isUpper(b[k] as number)) k--;
  const typeAt = k + 1;
  const type = entryType(b, typeAt, end - 2);
  const typeMarkAt = typeAt - TYPE_MARK.length;
  if (type === undefined || !matches(b, typeMarkAt, TYPE_MARK)) return false;
  let m = typeMarkAt - 1;
  while (m > start && isDigit(b[m] as number)) m--;
  const seqAt = m + 1;
  const digits = typeMarkAt - seqAt;
  if (digits < 1 || digits > MAX_SEQ_DIGITS || (digits > 1 && b[seqAt] === 0x30)) return false;
  const seqMarkAt = seqAt - SEQ_MARK.length;
  const prevHashAt = seqMarkAt - 1 - HEX_LENGTH;
  const hashAt = prevHashAt - PREV_MARK.length - HEX_LENGTH;
  const dataEnd = hashAt - HASH_MARK.length;
  const dataStart = start + DATA_PREFIX.length;
  if (dataEnd <= dataStart || !matches(b, seqMarkAt, SEQ_MARK) || b[seqMarkAt - 1] !== 0x22) return false;
  if (!matches(b, prevHashAt - PREV_MARK.length, PREV_MARK) || !matches(b, dataEnd, HASH_MARK)) return false;
  if (!isAsciiCanonicalObject(b, dataStart, dataEnd)) return false;
  let seq = 0;
  for (let i = seqAt; i < typeMarkAt; i++) seq = seq * 10 + (b[i] as number) - 0x30;
  out.seq = seq;
  out.type = type;
  out.dataStart = dataStart;
  out.dataEnd = dataEnd;
  out.hashAt = hashAt;
  out.prevHashAt = prevHashAt;
  out.seqAt = seqAt;
  out.seqEnd = typeMarkAt;
  out.typeAt = typeAt;
  out.typeEnd = end - 2;
  return true;
}

// The view of the buffer the last line was read from: lines arrive a chunk at a time.
let viewed: Buffer | undefined;
let view: DataView = new DataView(new ArrayBuffer(0));

/** Whether `mark` sits at `at`; the caller keeps `at` within the line, so the words stay within the buffer. */
function matches(b: Buffer, at: number, mark: Mark): boolean {
  if (at < 0 || at + mark.length > b.length) return false;
  const { words, tail } = mark;
  let i = at;
  for (let w = 0; w < words.length; w++, i += 4) if (view.getUint32(i) !== words[w]) return false;
  for (let t = 0; t < tail.length; t++, i++) if (b[i] !== tail[t]) return false;
  return true;
}

function entryType(b: Buffer, at: number, end: number): EntryType | undefined {
  if (end - at < 4) return undefined;
  const candidate = TYPES.get(view.getUint32(at));
  return candidate !== undefined && candidate.mark.length === end - at && matches(b, at, candidate.mark) ? candidate.type : undefined;
}

function isUpper(c: number): boolean {
  return c >= 0x41 && c <= 0x5a;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
