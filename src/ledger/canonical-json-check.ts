/**
 * Whether a text is already RFC 8785 canonical JSON, decided by one scan without building values:
 * true exactly when canonicalJSON(JSON.parse(text)) === text. Verification uses it to hash the data
 * bytes of a ledger line as they stand instead of parsing and re-serializing every entry.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 512;

// Characters a canonical string holds as themselves: no quote, backslash, control or surrogate unit.
const PLAIN_RUN = /[^"\\\u0000-\u001f\ud800-\udfff]*/y;
const NUMBER_TOKEN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The escapes JSON.stringify (and so RFC 8785) writes: two-character forms, else \u00xx lowercase. */
const SHORT_ESCAPES: Readonly<Record<string, number>> = { '"': 0x22, "\\": 0x5c, b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09 };
const HAS_SHORT_FORM = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

class NotCanonical extends Error {}

// The scan is synchronous and never re-entered, so it hands back a key's decoded text and an
// escape's code unit here instead of allocating a result object per string.
let scannedKey = "";
let escapedUnit = 0;

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
      return string(s, i, false);
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
  let previous: string | undefined;
  for (;;) {
    if (s.charCodeAt(i) !== QUOTE) fail();
    i = string(s, i, true);
    // Sorted by UTF-16 code units, strictly: that also rules out duplicate keys.
    if (previous !== undefined && !(previous < scannedKey)) fail();
    previous = scannedKey;
    if (s.charCodeAt(i) !== 0x3a) fail();
    i = value(s, i + 1, depth + 1);
    const c = s.charCodeAt(i);
    if (c === 0x7d) return i + 1;
    if (c !== 0x2c) fail();
    i++;
  }
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

/**
 * Scans a canonical string at `i` (the opening quote); returns the index after it. With `isKey`,
 * leaves its decoded text in `scannedKey`.
 */
function string(s: string, i: number, isKey: boolean): number {
  const start = i + 1;
  let j = start;
  let decoded = "";
  let escaped = false;
  for (;;) {
    PLAIN_RUN.lastIndex = j;
    PLAIN_RUN.test(s);
    const runEnd = PLAIN_RUN.lastIndex;
    if (escaped && isKey) decoded += s.slice(j, runEnd);
    j = runEnd;
    const c = s.charCodeAt(j);
    if (c === QUOTE) {
      if (isKey) scannedKey = escaped ? decoded : s.slice(start, j);
      return j + 1;
    }
    if (c === BACKSLASH) {
      if (!escaped && isKey) decoded = s.slice(start, j);
      escaped = true;
      j += escape(s, j);
      if (isKey) decoded += String.fromCharCode(escapedUnit);
    } else if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(j + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) fail();
      if (escaped && isKey) decoded += s.slice(j, j + 2);
      j += 2;
    } else {
      // End of text, a raw control character, or a low surrogate with no high one before it.
      fail();
    }
  }
}

/** Checks the escape at `i` is the one JCS would write; leaves its code unit in `escapedUnit`, returns its length. */
function escape(s: string, i: number): number {
  const kind = s[i + 1];
  if (kind === undefined) fail();
  if (kind !== "u") {
    const unit = SHORT_ESCAPES[kind];
    if (unit === undefined) fail();
    escapedUnit = unit;
    return 2;
  }
  const hex = s.slice(i + 2, i + 6);
  if (!/^00[01][0-9a-f]$/.test(hex)) fail();
  escapedUnit = Number.parseInt(hex, 16);
  if (HAS_SHORT_FORM.has(escapedUnit)) fail();
  return 6;
}

function literal(s: string, i: number, word: string): number {
  if (!s.startsWith(word, i)) fail();
  return i + word.length;
}

function number(s: string, i: number): number {
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
