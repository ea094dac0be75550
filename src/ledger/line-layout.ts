import { canonicalObjectEnd } from "./canonical-bytes-check.js";
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
const SEQ_MARK = new Mark('","seq":');
const TYPE_MARK = new Mark(',"type":"');
const LINE_END = new Mark('"}\n');
/** Entry types by their first four letters (every type has at least four). */
const TYPES = new Map(ENTRY_TYPES.map((type) => [Buffer.from(type, "latin1").readUInt32BE(0), { type, mark: new Mark(type) }]));
const HEX_LENGTH = 64;
// Longer seq texts exist only past 10^15 entries; the text reader still takes them.
const MAX_SEQ_DIGITS = 15;

/**
 * Reads, from `start`, a line laid out exactly as encodeEntryLine writes it, in ASCII, with data that
 * is canonical JSON, and its newline: `{"data":D,"hash":"H","prevHash":"P","seq":N,"type":"T"}\n`.
 * One forward pass: the form check of D finds where D ends, and everything after it has a fixed
 * shape. The two hash fields are only located (64 bytes each), not checked for form: the verifier
 * compares both with hex hashes it holds. Returns where the newline sits, or -1 for any other line
 * (or one the bytes end inside), which the text reader then decides on.
 */
export function readLineAt(b: Buffer, start: number, out: LineLayout): number {
  if (b !== viewed) {
    viewed = b;
    view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  if (!matches(b, start, DATA_PREFIX)) return -1;
  const dataStart = start + DATA_PREFIX.length;
  const dataEnd = canonicalObjectEnd(b, dataStart);
  if (dataEnd < 0 || !matches(b, dataEnd, HASH_MARK)) return -1;
  const hashAt = dataEnd + HASH_MARK.length;
  if (!matches(b, hashAt + HEX_LENGTH, PREV_MARK)) return -1;
  const prevHashAt = hashAt + HEX_LENGTH + PREV_MARK.length;
  if (!matches(b, prevHashAt + HEX_LENGTH, SEQ_MARK)) return -1;
  const seqAt = prevHashAt + HEX_LENGTH + SEQ_MARK.length;
  const length = b.length;
  let k = seqAt;
  let seq = 0;
  for (; k < length && isDigit(b[k] as number); k++) seq = seq * 10 + (b[k] as number) - 0x30;
  const digits = k - seqAt;
  if (digits < 1 || digits > MAX_SEQ_DIGITS || (digits > 1 && b[seqAt] === 0x30) || !matches(b, k, TYPE_MARK)) return -1;
  const typeAt = k + TYPE_MARK.length;
  let typeEnd = typeAt;
  while (typeEnd < length && isUpper(b[typeEnd] as number)) typeEnd++;
  const type = entryType(b, typeAt, typeEnd);
  if (type === undefined || !matches(b, typeEnd, LINE_END)) return -1;
  out.seq = seq;
  out.type = type;
  out.dataStart = dataStart;
  out.dataEnd = dataEnd;
  out.hashAt = hashAt;
  out.prevHashAt = prevHashAt;
  out.seqAt = seqAt;
  out.seqEnd = k;
  out.typeAt = typeAt;
  out.typeEnd = typeEnd;
  return typeEnd + 2;
}

// The view of the buffer the last line was read from: lines arrive a chunk at a time.
let viewed: Buffer | undefined;
let view: DataView = new DataView(new ArrayBuffer(0));

/** Whether `mark` sits at `at`, entirely within the bytes. */
function matches(b: Buffer, at: number, mark: Mark): boolean {
  if (at < 0 || at + mark.length > b.length) return false;
  const { words, tail } = mark;
  let i = at;
  for (let w = 0; w < words.length; w++, i += 4) if (view.getUint32(i) !== words[w]) return false;
  for (let t = 0; t < tail.length; t++, i++) if (b[i] !== tail[t]) return false;
  return true;
}

function entryType(b: Buffer, at: number, end: number): EntryType | undefined {
  if (end - at < 4 || end > b.length) return undefined;
  const candidate = TYPES.get(view.getUint32(at));
  return candidate !== undefined && candidate.mark.length === end - at && matches(b, at, candidate.mark) ? candidate.type : undefined;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isUpper(c: number): boolean {
  return c >= 0x41 && c <= 0x5a;
}
