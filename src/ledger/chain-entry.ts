import { hash } from "node:crypto";
import { canonicalJSON } from "./canonical-json.js";

/** RFC-001 entry types; GENESIS opens every chain and appears nowhere else. */
export const ENTRY_TYPES = ["GENESIS", "BOOT", "CLAIM", "VERIFY", "RETRACT", "META"] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

/** RFC-001: the genesis entry's prevHash is 32 zero bytes, written as hex like every other hash. */
export const GENESIS_PREV_HASH = "0".repeat(64);

export type EntryData = Readonly<Record<string, unknown>>;

/** An entry without its data: what the chain links and what a verifier reads from a line first. */
export interface EntryHeader {
  readonly seq: number;
  readonly type: EntryType;
  readonly prevHash: string;
  readonly hash: string;
}

export interface ChainEntry extends EntryHeader {
  readonly data: EntryData;
}

export function isEntryType(value: unknown): value is EntryType {
  return typeof value === "string" && (ENTRY_TYPES as readonly string[]).includes(value);
}

/** RFC-001: hex(SHA-256(prevHash | seq | type | canonicalJSON(data))), over UTF-8. */
export function chainHash(prevHash: string, seq: number, type: EntryType, data: EntryData): string {
  return chainHashOfCanonical(prevHash, seq, type, canonicalJSON(data));
}

export function chainHashOfCanonical(prevHash: string, seq: number, type: string, canonicalData: string): string {
  return hash("sha256", `${prevHash}|${seq}|${type}|${canonicalData}`, "hex");
}

/** Builds the entry that follows `prev` (or the genesis entry when there is none). */
export function nextEntry(prev: ChainEntry | undefined, type: EntryType, data: EntryData): ChainEntry {
  return nextEntryOfCanonical(prev, type, data, canonicalJSON(data));
}

/** nextEntry for a caller that already holds canonicalJSON(data) and must not compute it twice. */
export function nextEntryOfCanonical(prev: ChainEntry | undefined, type: EntryType, data: EntryData, canonicalData: string): ChainEntry {
  const seq = prev === undefined ? 0 : prev.seq + 1;
  const prevHash = prev === undefined ? GENESIS_PREV_HASH : prev.hash;
  if ((seq === 0) !== (type === "GENESIS")) {
    throw new Error(seq === 0 ? "a chain must open with a GENESIS entry" : "GENESIS may only open a chain");
  }
  return { seq, type, data, prevHash, hash: chainHashOfCanonical(prevHash, seq, type, canonicalData) };
}
