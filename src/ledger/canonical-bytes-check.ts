/**
 * The verifier's form check over the raw bytes of a line, so nothing is decoded or copied: true only
 * when bytes [start, end) are RFC 8785 canonical JSON for an object written in ASCII. Everything
 * else, including canonical text with non-ASCII characters or escaped keys, gets false, which here
 * means "not vouched for": the caller then decodes the line and lets isCanonicalJSON decide. For
 * ASCII the bytes are the UTF-8 of the text, so hashing them is hashing canonicalJSON(data).
 *
 * Every read is kept below `limit`: a read past the end of a typed array makes V8 recompile the
 * whole scan for a slower kind of access, and a chunk of a ledger usually ends inside a line.
 */

import { wordView } from "./word-view.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 512;

/** 1 for the bytes a canonical string holds as themselves: printable ASCII (and DEL) but quote and backslash. */
const PLAIN = new Uint8Array(256);
for (let c = 0x20; c < 0x80; c++) PLAIN[c] = c === QUOTE || c === BACKSLASH ? 0 : 1;

/** The characters after a backslash that JCS writes as a two-character escape. */
const SHORT_ESCAPE = new Uint8Array(256);
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;

/** The control characters JCS writes as \u00xx (the others have a short form). */
const U_ESCAPED = new Uint8Array(0x20).fill(1);
for (const c of [0x08, 0x09, 0x0a, 0x0c, 0x0d]) U_ESCAPED[c] = 0;

const NUMBER_TOKEN = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

const FAIL = -1;

// The scan is synchronous and never re-entered, so the word view of the bytes it is on lives here
// rather than being passed down every call.
let words: DataView = new DataView(new ArrayBuffer(0));

export function isAsciiCanonicalObject(bytes: Uint8Array, start: number, end: number): boolean {
  return end <= bytes.length && canonicalObjectEnd(bytes, start, end) === end;
}

/**
 * Where the object that starts at `start` ends, when it is ASCII canonical JSON that ends by
 * `end` (default: the end of the bytes); else -1.
 */
export function canonicalObjectEnd(b: Uint8Array, start: number, end = b.length): number {
  words = wordView(b);
  const limit = end <= b.length ? end : b.length;
  return start >= 0 && start < limit && b[start] === 0x7b ? object(b, start, 0, limit) : FAIL;
}

/** The byte at `i`, or -1 at or past `limit`. */
function at(b: Uint8Array, i: number, limit: number): number {
  return i < limit ? (b[i] as number) : FAIL;
}

function value(b: Uint8Array, i: number, depth: number, limit: number): number {
  switch (at(b, i, limit)) {
    case 0x7b:
      return object(b, i, depth, limit);
    case 0x5b:
      return array(b, i, depth, limit);
    case QUOTE:
      return string(b, i, limit);
    case 0x74:
      return word(b, i, limit, 0x74, 0x72, 0x75, 0x65) ? i + 4 : FAIL;
    case 0x66:
      return word(b, i + 1, limit, 0x61, 0x6c, 0x73, 0x65) ? i + 5 : FAIL;
    case 0x6e:
      return word(b, i, limit, 0x6e, 0x75, 0x6c, 0x6c) ? i + 4 : FAIL;
    default:
      return number(b, i, limit);
  }
}

function word(b: Uint8Array, i: number, limit: number, c0: number, c1: number, c2: number, c3: number): boolean {
  return i + 4 <= limit && b[i] === c0 && b[i + 1] === c1 && b[i + 2] === c2 && b[i + 3] === c3;
}

function object(b: Uint8Array, i: number, depth: number, limit: number): number {
  if (depth >= MAX_DEPTH) return FAIL;
  i++;
  if (at(b, i, limit) === 0x7d) return i + 1;
  let previous = -1;
  let previousLength = 0;
  for (;;) {
    if (at(b, i, limit) !== QUOTE) return FAIL;
    // The key is scanned here and ordered against the one before it as it goes; for ASCII, byte
    // order is UTF-16 order. An escaped key sorts by its decoded characters: left to the text reader.
    const key = i + 1;
    let j = key;
    // 1: after the previous key; 0: equal to it so far; -1: before it.
    let order = previous === -1 ? 1 : 0;
    for (;;) {
      if (j >= limit) return FAIL;
      const c = b[j] as number;
      if (c === QUOTE) break;
      if (PLAIN[c] !== 1) return FAIL;
      if (order === 0) {
        const n = j - key;
        if (n >= previousLength) order = 1;
        else if (b[previous + n] !== c) order = (b[previous + n] as number) < c ? 1 : -1;
      }
      j++;
    }
    // Equal so far and no longer: the same key again, or a prefix of the previous one.
    if (order !== 1) return FAIL;
    previous = key;
    previousLength = j - key;
    i = j + 1;
    if (at(b, i, limit) !== 0x3a) return FAIL;
    i++;
    // Most values are strings: straight to the string scan.
    i = at(b, i, limit) === QUOTE ? string(b, i, limit) : value(b, i, depth + 1, limit);
    if (i === FAIL) return FAIL;
    const c = at(b, i, limit);
    if (c === 0x7d) return i + 1;
    if (c !== 0x2c) return FAIL;
    i++;
  }
}

function array(b: Uint8Array, i: number, depth: number, limit: number): number {
  if (depth >= MAX_DEPTH) return FAIL;
  i++;
  if (at(b, i, limit) === 0x5d) return i + 1;
  for (;;) {
    i = value(b, i, depth + 1, limit);
    if (i === FAIL) return FAIL;
    const c = at(b, i, limit);
    if (c === 0x5d) return i + 1;
    if (c !== 0x2c) return FAIL;
    i++;
  }
}

const LOW = 0x01010101;
const HIGH = 0x80808080 | 0;

/**
 * The end of the string whose quote is at `i`. Runs of plain bytes are passed four at a time: a
 * word is plain when no byte has the top bit set, none is below 0x20, and none is a quote or a
 * backslash (the usual test for a zero byte, applied to the word and to the word XOR each of them).
 */
function string(b: Uint8Array, i: number, limit: number): number {
  const view = words;
  let j = i + 1;
  for (;;) {
    while (j + 4 <= limit) {
      const w = view.getInt32(j);
      const q = w ^ 0x22222222;
      const s = w ^ 0x5c5c5c5c;
      if ((w | ((w - 0x20202020) & ~w) | ((q - LOW) & ~q) | ((s - LOW) & ~s)) & HIGH) break;
      j += 4;
    }
    if (j >= limit) return FAIL;
    const c = b[j] as number;
    if (PLAIN[c] === 1) {
      j++;
    } else if (c === QUOTE) {
      return j + 1;
    } else if (c === BACKSLASH) {
      const n = escape(b, j, limit);
      if (n === FAIL) return FAIL;
      j += n;
    } else {
      // A control byte, or a byte of a non-ASCII character.
      return FAIL;
    }
  }
}

/** The length of the escape at `i` when it is the one JCS writes, else FAIL. */
function escape(b: Uint8Array, i: number, limit: number): number {
  const kind = at(b, i + 1, limit);
  if (kind === FAIL) return FAIL;
  if (SHORT_ESCAPE[kind] === 1) return 2;
  if (kind !== 0x75 || at(b, i + 2, limit) !== 0x30 || at(b, i + 3, limit) !== 0x30) return FAIL;
  const high = at(b, i + 4, limit);
  const low = hexDigit(at(b, i + 5, limit));
  if ((high !== 0x30 && high !== 0x31) || low === FAIL) return FAIL;
  return U_ESCAPED[(high - 0x30) * 16 + low] === 1 ? 6 : FAIL;
}

/** The value of a lowercase hex digit, else FAIL. */
function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return FAIL;
}

function number(b: Uint8Array, i: number, limit: number): number {
  const negative = at(b, i, limit) === 0x2d;
  const digitsStart = negative ? i + 1 : i;
  let j = digitsStart;
  while (j < limit && isDigit(b[j] as number)) j++;
  const digits = j - digitsStart;
  const next = at(b, j, limit);
  // An integer of up to 15 digits is exact in a double and printed without exponent: canonical
  // exactly when it has no leading zero and is not -0.
  if (digits > 0 && digits <= 15 && next !== 0x2e && next !== 0x65 && next !== 0x45) {
    return b[digitsStart] === 0x30 && (digits > 1 || negative) ? FAIL : j;
  }
  while (j < limit && isNumberByte(b[j] as number)) j++;
  const token = Buffer.from(b.buffer, b.byteOffset + i, j - i).toString("latin1");
  if (!NUMBER_TOKEN.test(token)) return FAIL;
  const n = Number(token);
  // ES6 Number-to-String is JCS's number form: a canonical token is its own round trip.
  return Number.isFinite(n) && String(n) === token ? j : FAIL;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isNumberByte(c: number): boolean {
  return isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}
