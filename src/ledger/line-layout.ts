import { canonicalObjectEnd } from "./canonical-bytes-check.js";
import { ENTRY_TYPES, type EntryType } from "./chain-entry.js";
import { wordView } from "./word-view.js";

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

/** Entry types by their first four letters (every type has at least four), as a big-endian word. */
const TYPES = new Map(ENTRY_TYPES.map((type) => [Buffer.from(type, "latin1").readUInt32BE(0), type]));
const HEX_LENGTH = 64;
// Longer seq texts exist only past 10^15 entries; the text reader still takes them.
const MAX_SEQ_DIGITS = 15;
// The fixed text between the data and the seq digits: ,"hash":"<64>","prevHash":"<64>","seq":
const HASHES_LENGTH = 9 + HEX_LENGTH + 14 + HEX_LENGTH + 8;

/**
 * Reads, from `start`, a line laid out exactly as encodeEntryLine writes it, in ASCII, with data that
 * is canonical JSON, and its newline: `{"data":D,"hash":"H","prevHash":"P","seq":N,"type":"T"}\n`.
 * One forward pass: the form check of D finds where D ends, and everything after it has a fixed
 * shape. The two hash fields are only located (64 bytes each), not checked for form: the verifier
 * compares both with hex hashes it holds. Returns where the newline sits, or -1 for any other line
 * (or one the bytes end inside), which the text reader then decides on.
 */
export function readLineAt(b: Buffer, start: number, out: LineLayout): number {
  const view = wordView(b);
  const length = b.length;
  // The fixed texts are compared as big-endian words, written here as numbers: {"data":
  if (start < 0 || start + 8 > length || view.getUint32(start) !== 0x7b226461 || view.getUint32(start + 4) !== 0x7461223a) return -1;
  const dataStart = start + 8;
  const dataEnd = canonicalObjectEnd(b, dataStart);
  if (dataEnd < 0 || dataEnd + HASHES_LENGTH > length) return -1;
  const hashAt = dataEnd + 9;
  const prevHashAt = hashAt + HEX_LENGTH + 14;
  const seqAt = prevHashAt + HEX_LENGTH + 8;
  // ,"hash":"  then  ","prevHash":"  then  ","seq":
  if (view.getUint32(dataEnd) !== 0x2c226861 || view.getUint32(dataEnd + 4) !== 0x7368223a || b[dataEnd + 8] !== 0x22) return -1;
  const prevMark = hashAt + HEX_LENGTH;
  if (view.getUint32(prevMark) !== 0x222c2270 || view.getUint32(prevMark + 4) !== 0x72657648 || view.getUint32(prevMark + 8) !== 0x61736822) return -1;
  if (view.getUint16(prevMark + 12) !== 0x3a22) return -1;
  const seqMark = prevHashAt + HEX_LENGTH;
  if (view.getUint32(seqMark) !== 0x222c2273 || view.getUint32(seqMark + 4) !== 0x6571223a) return -1;
  let k = seqAt;
  let seq = 0;
  for (; k < length && isDigit(b[k] as number); k++) seq = seq * 10 + (b[k] as number) - 0x30;
  const digits = k - seqAt;
  if (digits < 1 || digits > MAX_SEQ_DIGITS || (digits > 1 && b[seqAt] === 0x30)) return -1;
  // ,"type":"
  if (k + 9 > length || view.getUint32(k) !== 0x2c227479 || view.getUint32(k + 4) !== 0x7065223a || b[k + 8] !== 0x22) return -1;
  const typeAt = k + 9;
  let typeEnd = typeAt;
  while (typeEnd < length && isUpper(b[typeEnd] as number)) typeEnd++;
  const type = entryType(b, view, typeAt, typeEnd);
  // "} and the newline
  if (type === undefined || typeEnd + 3 > length || b[typeEnd] !== 0x22 || b[typeEnd + 1] !== 0x7d || b[typeEnd + 2] !== 0x0a) return -1;
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

/** The entry type spelled by bytes [at, end), which are capital letters. */
function entryType(b: Buffer, view: DataView, at: number, end: number): EntryType | undefined {
  if (end - at < 4) return undefined;
  const type = TYPES.get(view.getUint32(at));
  if (type === undefined || type.length !== end - at) return undefined;
  for (let i = 4; i < type.length; i++) if (b[at + i] !== type.charCodeAt(i)) return undefined;
  return type;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isUpper(c: number): boolean {
  return c >= 0x41 && c <= 0x5a;
}
