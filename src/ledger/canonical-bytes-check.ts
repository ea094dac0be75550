/**
 * The verifier's form check over the raw bytes of a line, so nothing is decoded or copied: true only
 * when bytes [start, end) are RFC 8785 canonical JSON for an object written in ASCII. Everything
 * else, including canonical text with non-ASCII characters or escaped keys, gets false, which here
 * means "not vouched for": the caller then decodes the line and lets isCanonicalJSON decide. For
 * ASCII the bytes are the UTF-8 of the text, so hashing them is hashing canonicalJSON(data).
 */

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

// Synchronous and never re-entered: the string scan reports whether it met an escape here rather
// than allocating a result per string.
let sawEscape = false;

export function isAsciiCanonicalObject(b: Buffer, start: number, end: number): boolean {
  return b[start] === 0x7b && end <= b.length && object(b, start, 0) === end;
}

function value(b: Buffer, i: number, depth: number): number {
  switch (b[i]) {
    case 0x7b:
      return object(b, i, depth);
    case 0x5b:
      return array(b, i, depth);
    case QUOTE:
      return string(b, i);
    case 0x74:
      return word(b, i, 0x74, 0x72, 0x75, 0x65) ? i + 4 : FAIL;
    case 0x66:
      return word(b, i + 1, 0x61, 0x6c, 0x73, 0x65) ? i + 5 : FAIL;
    case 0x6e:
      return word(b, i, 0x6e, 0x75, 0x6c, 0x6c) ? i + 4 : FAIL;
    default:
      return number(b, i);
  }
}

function word(b: Buffer, i: number, c0: number, c1: number, c2: number, c3: number): boolean {
  return b[i] === c0 && b[i + 1] === c1 && b[i + 2] === c2 && b[i + 3] === c3;
}

function object(b: Buffer, i: number, depth: number): number {
  if (depth >= MAX_DEPTH) return FAIL;
  i++;
  if (b[i] === 0x7d) return i + 1;
  let previous = -1;
  let previousEnd = -1;
  for (;;) {
    if (b[i] !== QUOTE) return FAIL;
    const key = i;
    i = string(b, i);
    // An escaped key sorts by its decoded characters; the text reader handles that rare case.
    if (i === FAIL || sawEscape) return FAIL;
    if (previous !== -1 && !keyBefore(b, previous, previousEnd, key, i)) return FAIL;
    previous = key;
    previousEnd = i;
    if (b[i] !== 0x3a) return FAIL;
    i = value(b, i + 1, depth + 1);
    if (i === FAIL) return FAIL;
    const c = b[i];
    if (c === 0x7d) return i + 1;
    if (c !== 0x2c) return FAIL;
    i++;
  }
}

/** Strict order of two quoted ASCII keys, in place; for ASCII, byte order is UTF-16 order. */
function keyBefore(b: Buffer, a: number, aEnd: number, k: number, kEnd: number): boolean {
  const aLength = aEnd - a - 2;
  const kLength = kEnd - k - 2;
  const common = aLength < kLength ? aLength : kLength;
  for (let n = 1; n <= common; n++) {
    const x = b[a + n] as number;
    const y = b[k + n] as number;
    if (x !== y) return x < y;
  }
  return aLength < kLength;
}

function array(b: Buffer, i: number, depth: number): number {
  if (depth >= MAX_DEPTH) return FAIL;
  i++;
  if (b[i] === 0x5d) return i + 1;
  for (;;) {
    i = value(b, i, depth + 1);
    if (i === FAIL) return FAIL;
    const c = b[i];
    if (c === 0x5d) return i + 1;
    if (c !== 0x2c) return FAIL;
    i++;
  }
}

function string(b: Buffer, i: number): number {
  let j = i + 1;
  sawEscape = false;
  for (;;) {
    const c = b[j];
    if (c === undefined) return FAIL;
    if (PLAIN[c] === 1) {
      j++;
    } else if (c === QUOTE) {
      return j + 1;
    } else if (c === BACKSLASH) {
      sawEscape = true;
      const n = escape(b, j);
      if (n === FAIL) return FAIL;
      j += n;
    } else {
      // A control byte, or a byte of a non-ASCII character.
      return FAIL;
    }
  }
}

/** The length of the escape at `i` when it is the one JCS writes, else FAIL. */
function escape(b: Buffer, i: number): number {
  const kind = b[i + 1];
  if (kind === undefined) return FAIL;
  if (SHORT_ESCAPE[kind] === 1) return 2;
  if (kind !== 0x75 || b[i + 2] !== 0x30 || b[i + 3] !== 0x30) return FAIL;
  const high = b[i + 4];
  const low = hexDigit(b[i + 5]);
  if ((high !== 0x30 && high !== 0x31) || low === FAIL) return FAIL;
  return U_ESCAPED[(high - 0x30) * 16 + low] === 1 ? 6 : FAIL;
}

/** The value of a lowercase hex digit, else FAIL. */
function hexDigit(c: number | undefined): number {
  if (c === undefined) return FAIL;
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return FAIL;
}

function number(b: Buffer, i: number): number {
  const negative = b[i] === 0x2d;
  const digitsStart = negative ? i + 1 : i;
  let j = digitsStart;
  for (let c = b[j]; c !== undefined && c >= 0x30 && c <= 0x39; c = b[j]) j++;
  const digits = j - digitsStart;
  const next = b[j];
  // An integer of up to 15 digits is exact in a double and printed without exponent: canonical
  // exactly when it has no leading zero and is not -0.
  if (digits > 0 && digits <= 15 && next !== 0x2e && next !== 0x65 && next !== 0x45) {
    return b[digitsStart] === 0x30 && (digits > 1 || negative) ? FAIL : j;
  }
  for (let c = b[j]; c !== undefined && isNumberByte(c); c = b[j]) j++;
  const token = b.toString("latin1", i, j);
  if (!NUMBER_TOKEN.test(token)) return FAIL;
  const n = Number(token);
  // ES6 Number-to-String is JCS's number form: a canonical token is its own round trip.
  return Number.isFinite(n) && String(n) === token ? j : FAIL;
}

function isNumberByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}
