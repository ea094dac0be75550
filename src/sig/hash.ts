import { createHash } from "node:crypto";

/**
 * sig's content hash: SHA-256 over the exact bytes, written `sha256:<lowercase hex>`. Nothing is
 * normalised (no BOM stripping, no newline folding), so a changed byte is always a changed hash.
 */
export const HASH_PREFIX = "sha256:";

const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

export function hashContent(content: string | Uint8Array): string {
  return HASH_PREFIX + createHash("sha256").update(content).digest("hex");
}

/** sig's `contentLength`: the UTF-8 byte length, not the UTF-16 length of a JS string. */
export function contentLength(content: string | Uint8Array): number {
  return typeof content === "string" ? Buffer.byteLength(content, "utf8") : content.byteLength;
}

export function isContentHash(value: unknown): value is string {
  return typeof value === "string" && HASH_PATTERN.test(value);
}
