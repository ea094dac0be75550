/**
 * Whether a text is already RFC 8785 canonical JSON, decided by one scan without building values:
 * true exactly when canonicalJSON(JSON.parse(text)) === text. Verification uses it to hash the data
 * bytes of a ledger line as they stand instead of parsing and re-serializing every entry.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 512;

const NUMBER_TOKEN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The escapes JSON.stringify (and so RFC 8785) writes: two-character forms, else \u00xx lowercase. */
const SHORT_ESCAPES = new Set(['"', "\\", "b", "f", "n", "r", "t"]);
const HAS_SHORT_FORM = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

class NotCanonical extends Error {}

// The scan is synchronous and never re-entered, so it hands back whether the string it just read
// held an escape here instead of allocating a result per string.
let sawEscape = false;

export function isCanonicalJSON(text: string): boolean {
  try {
    const end = value(text, 0, 0);
    return end === text.length;
  } catch (error) {
    if (error instanceof NotCanonical) return false;
    throw error;
  }
}

/** True when `text` is canonical JSON for an object (a ledger entry's data). */
export function isCanonicalJSONObject(text: string): boolean {
  return text.charCodeAt(0) === 0x7b && isCanonicalJSON(text);
}

function fail(): never {
  throw new NotCanonical();
}

/** Scans one value starting at `i`; returns the index after it. */
function value(s: string, i: number, depth: number): number {
  switch (s.charCodeAt(i)) {
    case 0x7b:
      return object(s, i, depth);
    case 0x5b:
      return array(s, i, depth);
    case QUOTE:
      return string(s, i);
    case 0x74:
      return literal(s, i, "true");
    case 0x66:
      return literal(s, i, "false");
    case 0x6e:
      return literal(s, i, "null");
    default:
      return number(s, i);
  }
}

function object(s: string, i: number, depth: number): number {
  if (depth >= MAX_DEPTH) fail();
  i++;
  if (s.charCodeAt(i) === 0x7d) return i + 1;
  let previousStart = -1;
  let previousEnd = -1;
  let previousEscaped = false;
  for (;;) {
    if (s.charCodeAt(i) !== QUOTE) fail();
    const start = i;
    i = string(s, i);
    // Sorted by UTF-16 code units, strictly: that also rules out duplicate keys.
    if (previousStart !== -1 && !keyBefore(s, previousStart, previousEnd, previousEscaped, start, i, sawEscape)) fail();
    previousStart = start;
    previousEnd = i;
    previousEscaped = sawEscape;
    if (s.charCodeAt(i) !== 0x3a) fail();
    i = value(s, i + 1, depth + 1);
    const c = s.charCodeAt(i);
    if (c === 0x7d) return i + 1;
    if (c !== 0x2c) fail();
    i++;
  }
}

/** Whether the key quoted at [a, aEnd) sorts strictly before the one at [b, bEnd), compared in place. */
function keyBefore(s: string, a: number, aEnd: number, aEscaped: boolean, b: number, bEnd: number, bEscaped: boolean): boolean {
  if (aEscaped || bEscaped) return (JSON.parse(s.slice(a, aEnd)) as string) < (JSON.parse(s.slice(b, bEnd)) as string);
  const aLength = aEnd - a - 2;
  const bLength = bEnd - b - 2;
  const common = Math.min(aLength, bLength);
  for (let k = 1; k <= common; k++) {
    const x = s.charCodeAt(a + k);
    const y = s.charCodeAt(b + k);
    if (x !== y) return x < y;
  }
  return aLength < bLength;
}

function array(s: string, i: number, depth: number): number {
  if (depth >= MAX_DEPTH) fail();
  i++;
  if (s.charCodeAt(i) === 0x5d) return i + 1;
  for (;;) {
    i = value(s, i, depth + 1);
    const c = s.charCodeAt(i);
    if (c === 0x5d) return i + 1;
    if (c !== 0x2c) fail();
    i++;
  }
}

/** Scans a canonical string at `i` (the opening quote); returns the index after it and sets `sawEscape`. */
function string(s: string, i: number): number {
  let j = i + 1;
  sawEscape = false;
  for (;;) {
    const c = s.charCodeAt(j);
    // Characters a canonical string holds as themselves: no quote, backslash, control or surrogate unit.
    if (c >= 0x20 && c !== QUOTE && c !== BACKSLASH && (c < 0xd800 || c > 0xdfff)) {
      j++;
    } else if (c === QUOTE) {
      return j + 1;
    } else if (c === BACKSLASH) {
      sawEscape = true;
      j += escape(s, j);
    } else if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(j + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) fail();
      j += 2;
    } else {
      // End of text (NaN), a raw control character, or a low surrogate with no high one before it.
      fail();
    }
  }
}

/** Checks the escape at `i` is the one JCS would write; returns its length. */
function escape(s: string, i: number): number {
  const kind = s[i + 1];
  if (kind === undefined) fail();
  if (kind !== "u") {
    if (!SHORT_ESCAPES.has(kind)) fail();
    return 2;
  }
  const hex = s.slice(i + 2, i + 6);
  if (!/^00[01][0-9a-f]$/.test(hex) || HAS_SHORT_FORM.has(Number.parseInt(hex, 16))) fail();
  return 6;
}

function literal(s: string, i: number, word: string): number {
  if (!s.startsWith(word, i)) fail();
  return i + word.length;
}

function number(s: string, i: number): number {
  // Fast path: an integer of up to 15 digits (exact in a double, printed without exponent) is
  // canonical exactly when it has no leading zero and is not -0.
  const negative = s.charCodeAt(i) === 0x2d;
  const digitsStart = negative ? i + 1 : i;
  let j = digitsStart;
  for (let c = s.charCodeAt(j); c >= 0x30 && c <= 0x39; c = s.charCodeAt(j)) j++;
  const digits = j - digitsStart;
  const next = s.charCodeAt(j);
  if (digits > 0 && digits <= 15 && next !== 0x2e && next !== 0x65 && next !== 0x45) {
    if (s.charCodeAt(digitsStart) === 0x30 && (digits > 1 || negative)) fail();
    return j;
  }
  NUMBER_TOKEN.lastIndex = i;
  if (!NUMBER_TOKEN.test(s)) fail();
  const end = NUMBER_TOKEN.lastIndex;
  if (end === i) fail();
  const token = s.slice(i, end);
  const n = Number(token);
  // ES6 Number-to-String is JCS's number form: a canonical token is its own round trip.
  if (!Number.isFinite(n) || String(n) !== token) fail();
  return end;
}
