import { canonicalJSON } from "./canonical-json.js";
import { isCanonicalJSONObject } from "./canonical-json-check.js";
import { type ChainEntry, type EntryData, type EntryHeader, type EntryType, isEntryType } from "./chain-entry.js";

/**
 * One entry per line: the canonical JSON of {data, hash, prevHash, seq, type}. Because the line is
 * itself canonical, a reader can insist on it, and any rewrite that keeps the same values but
 * changes bytes (reordered keys, spaces, duplicate keys) is caught too.
 */
export function encodeEntryLine(entry: ChainEntry): string {
  return canonicalLine(entry, canonicalJSON(entry.data));
}

/** encodeEntryLine for a caller that already holds canonicalJSON(entry.data). */
export function canonicalLine(entry: EntryHeader, canonicalData: string): string {
  return `{"data":${canonicalData},"hash":"${entry.hash}","prevHash":"${entry.prevHash}","seq":${entry.seq},"type":"${entry.type}"}`;
}

export type ParsedLine =
  | { readonly ok: true; readonly entry: ChainEntry; readonly canonicalData: string }
  | { readonly ok: false; readonly reason: string };

const HEX64 = /^[0-9a-f]{64}$/;
const ENTRY_KEYS = 5;

export function parseEntryLine(line: string): ParsedLine {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return { ok: false, reason: "not valid JSON" };
  }
  if (!isPlainObject(raw)) return { ok: false, reason: "not a JSON object" };
  const { seq, type, data, prevHash, hash } = raw;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) {
    return { ok: false, reason: "seq is not a non-negative integer" };
  }
  if (!isEntryType(type)) return { ok: false, reason: "type is not one of the RFC-001 entry types" };
  if (!isPlainObject(data)) return { ok: false, reason: "data is not a JSON object" };
  if (typeof prevHash !== "string" || !HEX64.test(prevHash)) return { ok: false, reason: "prevHash is not 64 hex digits" };
  if (typeof hash !== "string" || !HEX64.test(hash)) return { ok: false, reason: "hash is not 64 hex digits" };
  if (Object.keys(raw).length !== ENTRY_KEYS) return { ok: false, reason: "unexpected fields in entry" };
  const entry: ChainEntry = { seq, type: type as EntryType, data: data as EntryData, prevHash, hash };
  let canonicalData: string;
  try {
    canonicalData = canonicalJSON(data);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  if (canonicalLine(entry, canonicalData) !== line) return { ok: false, reason: "entry is not in canonical form" };
  return { ok: true, entry, canonicalData };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A line read without parsing its data: the header fields and the data's canonical JSON text. */
export interface LineFields {
  readonly header: EntryHeader;
  readonly canonicalData: string;
}

const DATA_PREFIX = '{"data":';
const TYPE_MARK = ',"type":"';
const SEQ_MARK = ',"seq":';
const HASH_MARK = ',"hash":"';
const PREV_MARK = '","prevHash":"';
// ,"hash":"<64 hex>","prevHash":"<64 hex>"  between the data and ,"seq":
const HASHES_LENGTH = HASH_MARK.length + 64 + PREV_MARK.length + 64 + 1;
const SEQ_TEXT = /^(?:0|[1-9]\d{0,15})$/;

/**
 * The fast reading of a line, for the chain verifier: finds the fixed tail from the end and checks
 * the data is canonical JSON with one scan, without building it. The two hash fields are only cut
 * out (64 characters each), not checked for form: the verifier compares both with hex hashes it
 * computed itself, so only well-formed ones can pass, and it asks parseEntryLine for the precise
 * reason whenever an entry fails. Returns undefined for any line whose layout is not the one
 * encodeEntryLine writes.
 */
export function readCanonicalLine(line: string): LineFields | undefined {
  if (!line.startsWith(DATA_PREFIX) || !line.endsWith('"}')) return undefined;
  const typeAt = line.lastIndexOf(TYPE_MARK);
  const seqAt = line.lastIndexOf(SEQ_MARK, typeAt);
  const dataEnd = seqAt - HASHES_LENGTH;
  if (typeAt === -1 || seqAt === -1 || dataEnd <= DATA_PREFIX.length) return undefined;
  const type = line.slice(typeAt + TYPE_MARK.length, -2);
  const seqText = line.slice(seqAt + SEQ_MARK.length, typeAt);
  if (!isEntryType(type) || !SEQ_TEXT.test(seqText)) return undefined;
  const seq = Number(seqText);
  if (!Number.isSafeInteger(seq)) return undefined;
  const prevAt = dataEnd + HASH_MARK.length + 64;
  if (!line.startsWith(HASH_MARK, dataEnd) || !line.startsWith(PREV_MARK, prevAt) || line.charCodeAt(seqAt - 1) !== 0x22) return undefined;
  const hash = line.slice(dataEnd + HASH_MARK.length, prevAt);
  const prevHash = line.slice(prevAt + PREV_MARK.length, seqAt - 1);
  const canonicalData = line.slice(DATA_PREFIX.length, dataEnd);
  if (!isCanonicalJSONObject(canonicalData)) return undefined;
  return { header: { seq, type, prevHash, hash }, canonicalData };
}

