import { configuredEngines } from "./sig-config.js";
import { hashContent } from "./hash.js";
import { verifyDetached } from "./ed25519.js";
import { extractPlaceholders } from "./template-engines.js";
import { resolveContainedPath } from "./project-path.js";
import { parseChain, validateChain } from "./update-chain.js";
import type { ChainEntry } from "./update-chain.js";
import type { Signature } from "./signature.js";
import type { SigContext } from "./sig-context.js";

/** sig's verification error strings, and ours for what sig does not check. */
export const VERIFY_ERRORS = {
  noSignature: "No signature found",
  corrupted: "Signature file is corrupted or tampered with",
  fileMissing: "File not found",
  modified: "Content has been modified since signing",
  storedContentTampered: "Stored signed content does not match the signature",
  detachedMissing: "Ed25519 signature is missing",
  detachedInvalid: "Ed25519 signature does not verify against the configured public key",
  chainBroken: "Update chain is broken",
} as const;

export interface ChainSummary {
  readonly length: number;
  readonly valid: boolean;
  readonly error?: string;
  readonly lastUpdatedBy?: string;
  readonly lastUpdatedAt?: string;
}

export interface VerifyResult {
  readonly verified: boolean;
  readonly file: string;
  /** The signed text (placeholders visible), only when verified. */
  readonly template?: string;
  readonly hash?: string;
  readonly signedBy?: string;
  readonly signedAt?: string;
  readonly error?: string;
  readonly placeholders?: readonly string[];
  readonly chain?: ChainSummary;
}

export type CheckStatus = "signed" | "modified" | "unsigned" | "corrupted";

export interface CheckResult {
  readonly file: string;
  readonly status: CheckStatus;
  readonly signature?: Signature;
  /** Why a file is `corrupted` or `modified`. */
  readonly detail?: string;
}

interface Inspection {
  readonly file: string;
  readonly status: CheckStatus;
  readonly signature?: Signature;
  readonly error?: string;
  readonly hash?: string;
  readonly signedText?: Buffer;
  readonly chain?: ChainSummary;
}

/**
 * The checks both `verify` and `check` make. Beyond sig's (signature present and parseable, file
 * present, hash equal), the stored signed text is re-hashed, a configured Ed25519 key must have
 * signed the `.sig.json`, and an update chain must be intact and end at the signature.
 */
function inspect(ctx: SigContext, file: string): Inspection {
  const loaded = ctx.store.loadSignature(file);
  if (loaded.status === "not-found") return { file, status: "unsigned", error: VERIFY_ERRORS.noSignature };
  if (loaded.status === "corrupted") return { file, status: "corrupted", error: VERIFY_ERRORS.corrupted };
  const sig = loaded.signature;
  const content = ctx.store.readProjectFile(file);
  if (content === undefined) return { file, status: "modified", signature: sig, error: VERIFY_ERRORS.fileMissing };
  const hash = hashContent(content);
  if (hash !== sig.hash) return { file, status: "modified", signature: sig, hash, error: VERIFY_ERRORS.modified };

  const stored = ctx.store.loadSignedContent(file);
  // Equal bytes have equal hashes; only differing stored text needs hashing.
  if (stored !== undefined && !stored.equals(content) && hashContent(stored) !== sig.hash) {
    return { file, status: "corrupted", signature: sig, hash, error: VERIFY_ERRORS.storedContentTampered };
  }

  if (ctx.publicKey !== undefined) {
    const detached = ctx.store.loadDetached(file);
    if (detached === "missing") return { file, status: "corrupted", signature: sig, hash, error: VERIFY_ERRORS.detachedMissing };
    if (detached === "corrupted" || !verifyDetached(ctx.publicKey, loaded.raw, detached)) {
      return { file, status: "corrupted", signature: sig, hash, error: VERIFY_ERRORS.detachedInvalid };
    }
  }

  let chain: ChainSummary | undefined;
  const chainText = ctx.store.readChain(file);
  if (chainText !== undefined) {
    const parsed = parseChain(chainText);
    const validation = validateChain(parsed, sig.hash);
    if (validation.length > 0 || !validation.valid) {
      const head: ChainEntry | undefined = parsed.entries[parsed.entries.length - 1];
      chain = {
        length: validation.length,
        valid: validation.valid,
        ...(validation.error !== undefined ? { error: validation.error } : {}),
        ...(head !== undefined ? { lastUpdatedBy: head.signedBy, lastUpdatedAt: head.signedAt } : {}),
      };
      if (!validation.valid) {
        return { file, status: "corrupted", signature: sig, hash, chain, error: `${VERIFY_ERRORS.chainBroken}: ${validation.error ?? ""}` };
      }
    }
  }
  return { file, status: "signed", signature: sig, hash, signedText: stored ?? content, ...(chain ? { chain } : {}) };
}

/** Verifies one file and returns the signed text, signer and time (sig's verifyFile, stricter). */
export function verifyFile(ctx: SigContext, filePath: string): VerifyResult {
  const file = resolveContainedPath(ctx.projectRoot, filePath);
  const r = inspect(ctx, file);
  if (r.status !== "signed" || r.signature === undefined || r.signedText === undefined) {
    ctx.audit.log({
      event: "verify-fail",
      file,
      ...(r.hash !== undefined ? { hash: r.hash } : {}),
      detail: r.error === VERIFY_ERRORS.modified && r.signature ? `Expected ${r.signature.hash}, got ${r.hash ?? ""}` : (r.error ?? "failed"),
    });
    return {
      verified: false,
      file,
      ...(r.hash !== undefined ? { hash: r.hash } : {}),
      ...(r.signature ? { signedBy: r.signature.signedBy, signedAt: r.signature.signedAt } : {}),
      ...(r.error !== undefined ? { error: r.error } : {}),
      ...(r.chain ? { chain: r.chain } : {}),
    };
  }
  ctx.audit.log({ event: "verify", file, hash: r.signature.hash });
  const template = r.signedText.toString("utf8");
  const engines = configuredEngines(ctx.config) ?? (r.signature.templateEngine !== undefined ? [r.signature.templateEngine] : undefined);
  const placeholders = engines ? extractPlaceholders(template, engines, ctx.config.templates?.custom) : [];
  return {
    verified: true,
    file,
    template,
    hash: r.signature.hash,
    signedBy: r.signature.signedBy,
    signedAt: r.signature.signedAt,
    ...(placeholders.length > 0 ? { placeholders } : {}),
    ...(r.chain ? { chain: r.chain } : {}),
  };
}

export function checkFile(ctx: SigContext, filePath: string): CheckResult {
  const file = resolveContainedPath(ctx.projectRoot, filePath);
  const r = inspect(ctx, file);
  return {
    file,
    status: r.status,
    ...(r.signature ? { signature: r.signature } : {}),
    ...(r.status !== "signed" && r.status !== "unsigned" && r.error !== undefined ? { detail: r.error } : {}),
  };
}

export function checkAllSigned(ctx: SigContext): CheckResult[] {
  return ctx.store.listSignedFiles().map((file) => checkFile(ctx, file));
}
