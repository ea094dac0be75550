import type { SignableSource } from "./message-source.js";

/**
 * The v1 header token, `v1.<keyId>.<source>.<timestamp>.<messageId>.<scope>.<mac>`, read in place:
 * one pass over its characters against fixed classes, no regular expression and no split, because
 * it runs once per inbound message. The grammar (docs/auth.md) is
 * `v1\.[A-Za-z0-9_-]{1,32}\.[a-z]{1,16}\.(0|[1-9][0-9]{0,15})\.[A-Za-z0-9_-]{1,64}\.[a-z,]{1,40}\.[0-9a-f]{64}`.
 */
export interface EnvelopeToken {
  readonly keyId: string;
  readonly source: SignableSource;
  readonly timestamp: number;
  readonly messageId: string;
  /** The scope as spelled on the wire (canonical or not: action-scope.ts decides). */
  readonly scope: string;
}

export type TokenFailure = "unsupported-version" | "malformed" | "unknown-source";

const DOT = 0x2e;
const ID = 1;
const LOWER = 2;
const DIGIT = 4;
const SCOPE = 8;

const CLASSES = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9_-]/.test(ch)) CLASSES[c] = (CLASSES[c] as number) | ID;
  if (/[a-z]/.test(ch)) CLASSES[c] = (CLASSES[c] as number) | LOWER | SCOPE;
  if (/[0-9]/.test(ch)) CLASSES[c] = (CLASSES[c] as number) | DIGIT;
  if (c === 0x2c) CLASSES[c] = (CLASSES[c] as number) | SCOPE;
}

const MAC_HEX_DIGITS = 64;

/** Offset of the dot that ends a field of 1..max characters of class `cls` starting at `from`, or -1. */
function fieldEnd(text: string, from: number, end: number, cls: number, max: number): number {
  const limit = Math.min(end, from + max + 1);
  for (let i = from; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === DOT) return i > from ? i : -1;
    if (c >= 128 || ((CLASSES[c] as number) & cls) === 0) return -1;
  }
  return -1;
}

function sourceAt(text: string, from: number, to: number): SignableSource | undefined {
  const n = to - from;
  if (n === 5 && text.startsWith("human", from)) return "human";
  if (n === 5 && text.startsWith("agent", from)) return "agent";
  if (n === 6 && text.startsWith("system", from)) return "system";
  return undefined;
}

/**
 * Reads the token occupying `text[start, end)`, its MAC decoded into `mac` (32 bytes). A token that
 * does not start with `v1.` is another version; one that breaks the grammar is malformed; one whose
 * source is not signable is reported as such, only once the whole grammar holds.
 */
export function parseEnvelopeToken(text: string, start: number, end: number, mac: Buffer): EnvelopeToken | TokenFailure {
  if (end - start < 3 || !text.startsWith("v1.", start)) return "unsupported-version";
  const keyStart = start + 3;
  const keyEnd = fieldEnd(text, keyStart, end, ID, 32);
  if (keyEnd < 0) return "malformed";
  const sourceEnd = fieldEnd(text, keyEnd + 1, end, LOWER, 16);
  if (sourceEnd < 0) return "malformed";
  const tsStart = sourceEnd + 1;
  const tsEnd = fieldEnd(text, tsStart, end, DIGIT, 16);
  if (tsEnd < 0 || (tsEnd - tsStart > 1 && text.charCodeAt(tsStart) === 0x30)) return "malformed";
  const idEnd = fieldEnd(text, tsEnd + 1, end, ID, 64);
  if (idEnd < 0) return "malformed";
  const scopeEnd = fieldEnd(text, idEnd + 1, end, SCOPE, 40);
  if (scopeEnd < 0) return "malformed";
  const macStart = scopeEnd + 1;
  if (end - macStart !== MAC_HEX_DIGITS || !decodeHex(text, macStart, mac)) return "malformed";
  const source = sourceAt(text, keyEnd + 1, sourceEnd);
  if (source === undefined) return "unknown-source";
  return {
    keyId: text.slice(keyStart, keyEnd),
    source,
    timestamp: digitsValue(text, tsStart, tsEnd),
    messageId: text.slice(tsEnd + 1, idEnd),
    scope: text.slice(idEnd + 1, scopeEnd),
  };
}

function digitsValue(text: string, from: number, to: number): number {
  // Up to 15 digits the running value is exact (below 2^53) with no string made; longer runs go to
  // Number(), which rounds once, as a timestamp of 16 digits (the grammar's most) needs.
  if (to - from > 15) return Number(text.slice(from, to));
  let v = 0;
  for (let i = from; i < to; i++) v = v * 10 + (text.charCodeAt(i) - 0x30);
  return v;
}

const HEX_VALUE = new Int8Array(128).fill(-1);
for (let c = 0; c < 16; c++) HEX_VALUE[c.toString(16).charCodeAt(0)] = c;

/** Decodes 64 lower-case hex digits into `out`; false at the first other character. */
function decodeHex(text: string, from: number, out: Buffer): boolean {
  for (let i = 0; i < MAC_HEX_DIGITS / 2; i++) {
    const hi = text.charCodeAt(from + 2 * i);
    const lo = text.charCodeAt(from + 2 * i + 1);
    if (hi >= 128 || lo >= 128) return false;
    const v = ((HEX_VALUE[hi] as number) << 4) | (HEX_VALUE[lo] as number);
    // -1 in either digit makes v negative.
    if (v < 0) return false;
    out[i] = v;
  }
  return true;
}
