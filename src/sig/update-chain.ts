import { isContentHash } from "./hash.js";

export const SOURCE_TYPES = ["signed_message", "signed_template"] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export function isSourceType(value: unknown): value is SourceType {
  return typeof value === "string" && (SOURCE_TYPES as readonly string[]).includes(value);
}

/** Why an update was allowed: the signed source it traces back to. */
export interface UpdateProvenance {
  readonly sourceType: SourceType;
  readonly sourceId?: string;
  readonly sourceIdentity?: string;
  readonly sourceHash?: string;
  readonly reason: string;
}

/** One line of `.sig/chains/<path>.chain.jsonl`. */
export interface ChainEntry {
  readonly hash: string;
  readonly previousHash: string;
  readonly signedBy: string;
  readonly signedAt: string;
  readonly contentLength: number;
  readonly provenance: UpdateProvenance;
}

export function serializeChainEntry(entry: ChainEntry): string {
  const p = entry.provenance;
  const provenance: Record<string, unknown> = { sourceType: p.sourceType };
  if (p.sourceId !== undefined) provenance.sourceId = p.sourceId;
  if (p.sourceIdentity !== undefined) provenance.sourceIdentity = p.sourceIdentity;
  if (p.sourceHash !== undefined) provenance.sourceHash = p.sourceHash;
  provenance.reason = p.reason;
  return (
    JSON.stringify({
      hash: entry.hash,
      previousHash: entry.previousHash,
      signedBy: entry.signedBy,
      signedAt: entry.signedAt,
      contentLength: entry.contentLength,
      provenance,
    }) + "\n"
  );
}

export type ParsedChain =
  | { readonly ok: true; readonly entries: readonly ChainEntry[] }
  | { readonly ok: false; readonly entries: readonly ChainEntry[]; readonly error: string };

/**
 * Parses a chain file. sig drops the whole chain on one bad line and reports "no chain"; a line
 * that is not a chain entry is reported here, because a chain that cannot be read is a broken one.
 */
export function parseChain(text: string): ParsedChain {
  const entries: ChainEntry[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "") continue;
    const entry = parseChainLine(line);
    if (entry === undefined) return { ok: false, entries, error: `Chain entry ${entries.length} is not a valid chain entry` };
    entries.push(entry);
  }
  return { ok: true, entries };
}

function parseChainLine(line: string): ChainEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const p = v.provenance as Record<string, unknown> | null | undefined;
  if (!isContentHash(v.hash) || !isContentHash(v.previousHash)) return undefined;
  if (typeof v.signedBy !== "string" || typeof v.signedAt !== "string") return undefined;
  if (typeof v.contentLength !== "number" || !Number.isSafeInteger(v.contentLength) || v.contentLength < 0) return undefined;
  if (typeof p !== "object" || p === null || Array.isArray(p)) return undefined;
  if (!isSourceType(p.sourceType) || typeof p.reason !== "string") return undefined;
  for (const key of ["sourceId", "sourceIdentity", "sourceHash"] as const) {
    if (p[key] !== undefined && typeof p[key] !== "string") return undefined;
  }
  return {
    hash: v.hash,
    previousHash: v.previousHash,
    signedBy: v.signedBy,
    signedAt: v.signedAt,
    contentLength: v.contentLength,
    provenance: {
      sourceType: p.sourceType,
      ...(typeof p.sourceId === "string" ? { sourceId: p.sourceId } : {}),
      ...(typeof p.sourceIdentity === "string" ? { sourceIdentity: p.sourceIdentity } : {}),
      ...(typeof p.sourceHash === "string" ? { sourceHash: p.sourceHash } : {}),
      reason: p.reason,
    },
  };
}

export interface ChainValidation {
  readonly valid: boolean;
  readonly length: number;
  readonly error?: string;
}

/**
 * Each entry must continue from the one before (sig's rule), and, unlike sig, the newest entry
 * must be the content the signature vouches for: a chain that stops short of the signature head,
 * or runs past it, does not describe the signed file.
 */
export function validateChain(parsed: ParsedChain, signatureHash: string | undefined): ChainValidation {
  const entries = parsed.entries;
  if (!parsed.ok) return { valid: false, length: entries.length, error: parsed.error };
  if (entries.length === 0) return { valid: true, length: 0 };
  for (let i = 1; i < entries.length; i++) {
    const prev = entries[i - 1] as ChainEntry;
    const cur = entries[i] as ChainEntry;
    if (cur.previousHash !== prev.hash) {
      return {
        valid: false,
        length: entries.length,
        error: `Chain broken at entry ${i}: expected previousHash ${prev.hash}, got ${cur.previousHash}`,
      };
    }
  }
  const head = entries[entries.length - 1] as ChainEntry;
  if (signatureHash !== undefined && head.hash !== signatureHash) {
    return {
      valid: false,
      length: entries.length,
      error: `Chain head ${head.hash} does not match the signature ${signatureHash}`,
    };
  }
  return { valid: true, length: entries.length };
}
