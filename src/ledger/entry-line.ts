import { canonicalJSON } from "./canonical-json.js";
import { type ChainEntry, type EntryData, type EntryType, isEntryType } from "./chain-entry.js";

/**
 * One entry per line: the canonical JSON of {data, hash, prevHash, seq, type}. Because the line is
 * itself canonical, a reader can insist on it, and any rewrite that keeps the same values but
 * changes bytes (reordered keys, spaces, duplicate keys) is caught too.
 */
export function encodeEntryLine(entry: ChainEntry): string {
  return canonicalLine(entry, canonicalJSON(entry.data));
}

function canonicalLine(entry: ChainEntry, canonicalData: string): string {
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
