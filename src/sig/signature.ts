import { isContentHash } from "./hash.js";

/** One `.sig/sigs/<path>.sig.json`, field for field as sig writes it. */
export interface Signature {
  readonly file: string;
  readonly hash: string;
  readonly algorithm: "sha256";
  readonly signedBy: string;
  readonly signedAt: string;
  readonly contentLength: number;
  readonly templateEngine?: string;
}

/**
 * sig's readers compare files byte for byte in tests and diffs, so the key order, the two-space
 * indent and the trailing newline are part of the format.
 */
export function serializeSignature(sig: Signature): string {
  const ordered: Record<string, unknown> = {
    file: sig.file,
    hash: sig.hash,
    algorithm: sig.algorithm,
    signedBy: sig.signedBy,
    signedAt: sig.signedAt,
    contentLength: sig.contentLength,
  };
  if (sig.templateEngine !== undefined) ordered.templateEngine = sig.templateEngine;
  return JSON.stringify(ordered, null, 2) + "\n";
}

export type ParsedSignature =
  | { readonly ok: true; readonly signature: Signature }
  | { readonly ok: false; readonly problem: string };

/**
 * Reads a `.sig.json`. Unlike sig, which trusts any JSON, every field is checked and the record
 * must name the file it sits beside: a signature copied from another file is a tampered one.
 */
export function parseSignature(raw: string, expectedFile: string): ParsedSignature {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, problem: "not valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, problem: "not a JSON object" };
  }
  const v = value as Record<string, unknown>;
  if (typeof v.file !== "string") return { ok: false, problem: "file is not a string" };
  if (v.file.replaceAll("\\", "/") !== expectedFile) {
    return { ok: false, problem: `names ${JSON.stringify(v.file)} instead of ${JSON.stringify(expectedFile)}` };
  }
  if (!isContentHash(v.hash)) return { ok: false, problem: "hash is not sha256:<64 hex>" };
  if (v.algorithm !== "sha256") return { ok: false, problem: "algorithm is not sha256" };
  if (typeof v.signedBy !== "string") return { ok: false, problem: "signedBy is not a string" };
  if (typeof v.signedAt !== "string") return { ok: false, problem: "signedAt is not a string" };
  if (typeof v.contentLength !== "number" || !Number.isSafeInteger(v.contentLength) || v.contentLength < 0) {
    return { ok: false, problem: "contentLength is not a non-negative integer" };
  }
  if (v.templateEngine !== undefined && typeof v.templateEngine !== "string") {
    return { ok: false, problem: "templateEngine is not a string" };
  }
  const signature: Signature = {
    file: expectedFile,
    hash: v.hash,
    algorithm: "sha256",
    signedBy: v.signedBy,
    signedAt: v.signedAt,
    contentLength: v.contentLength,
    ...(typeof v.templateEngine === "string" ? { templateEngine: v.templateEngine } : {}),
  };
  return { ok: true, signature };
}
