import { contentLength, hashContent } from "./hash.js";
import { signDetached } from "./ed25519.js";
import { isIdentityAuthorized, resolveFilePolicy } from "./file-policy.js";
import { resolveContainedPath } from "./project-path.js";
import { isSourceType, parseChain, serializeChainEntry } from "./update-chain.js";
import type { SourceType, UpdateProvenance } from "./update-chain.js";
import { verifyFile } from "./verify-file.js";
import type { ContentStore } from "./content-store.js";
import type { Signature } from "./signature.js";
import type { SigContext } from "./sig-context.js";

export type DenialCode = "not_mutable" | "not_signed" | "unauthorized_identity" | "unsigned_source" | "source_verification_failed";

export interface UpdateResult {
  readonly approved: boolean;
  readonly file: string;
  readonly hash?: string;
  readonly previousHash?: string;
  readonly chainLength?: number;
  readonly denial?: { readonly code: DenialCode; readonly reason: string };
}

export interface UpdateRequest {
  /** Who is making the change: the sender of the turn, never something the model chose. */
  readonly identity: string;
  readonly sourceType: string;
  readonly sourceId?: string;
  readonly reason: string;
  /** The session's store of signed owner messages; without it a signed_message source cannot resolve. */
  readonly contentStore?: ContentStore;
}

/** sig's denial reasons, verbatim. */
export const DENIAL_REASONS = {
  not_mutable: () => "File policy does not allow mutations",
  not_signed: () => "File must be initially signed via `sig sign` before it can be updated",
  unauthorized_identity: (identity: string) => `Identity "${identity}" is not authorized to update this file`,
  unsigned_source: (sourceType: string) => `sourceId is required when sourceType is ${sourceType}`,
  source_message_failed: (id: string) => `Source message "${id}" could not be verified`,
  source_template_failed: (id: string) => `Source template "${id}" could not be verified`,
} as const;

interface SourceProof {
  readonly sourceIdentity?: string;
  readonly sourceHash?: string;
}

type Check = { readonly ok: true; readonly proof: SourceProof } | { readonly ok: false; readonly code: DenialCode; readonly reason: string; readonly detail: string };

/**
 * Checks an update against the file's policy, in sig's order and with sig's denial codes, then
 * writes the file, re-signs it and appends to its chain. Stricter than sig: a source is required
 * to resolve even with no content store, the source message's signer must be authorised for the
 * file as well, an unknown sourceType is refused, and the provenance recorded is the verified one.
 */
export function updateAndSign(ctx: SigContext, filePath: string, newContent: string, request: UpdateRequest): UpdateResult {
  const file = resolveContainedPath(ctx.projectRoot, filePath);
  const policy = resolveFilePolicy(ctx.config, file);
  const provenance: UpdateProvenance = {
    sourceType: isSourceType(request.sourceType) ? request.sourceType : "signed_message",
    ...(request.sourceId !== undefined && request.sourceId !== "" ? { sourceId: request.sourceId } : {}),
    reason: request.reason,
  };
  const deny = (code: DenialCode, reason: string, detail: string): UpdateResult => {
    ctx.audit.log({ event: "update_denied", file, identity: request.identity, detail, provenance });
    return { approved: false, file, denial: { code, reason } };
  };

  if (policy.mutable !== true) {
    return deny("not_mutable", DENIAL_REASONS.not_mutable(), "File is not mutable");
  }
  const existing = ctx.store.loadSignature(file);
  if (existing.status !== "found") {
    return deny("not_signed", DENIAL_REASONS.not_signed(), "File has no existing signature");
  }
  if (!isIdentityAuthorized(policy, request.identity)) {
    return deny(
      "unauthorized_identity",
      DENIAL_REASONS.unauthorized_identity(request.identity),
      `Identity not authorized. Allowed: ${(policy.authorizedIdentities ?? []).join(", ")}`,
    );
  }
  if (!isSourceType(request.sourceType)) {
    return deny("unsigned_source", `sourceType must be "signed_message" or "signed_template"`, `Unknown sourceType ${JSON.stringify(request.sourceType)}`);
  }
  let proof: SourceProof = {};
  if (policy.requireSignedSource) {
    const check = checkSource(ctx, request.sourceType, request.sourceId, request.contentStore, (identity) => isIdentityAuthorized(policy, identity));
    if (!check.ok) return deny(check.code, check.reason, check.detail);
    proof = check.proof;
  }

  const recorded: UpdateProvenance = { ...provenance, sourceType: request.sourceType, ...proof };
  const previousHash = existing.signature.hash;
  const hash = hashContent(newContent);
  const signedAt = new Date(ctx.clock()).toISOString();
  const length = contentLength(newContent);
  const sig: Signature = {
    file,
    hash,
    algorithm: "sha256",
    signedBy: request.identity,
    signedAt,
    contentLength: length,
    ...(existing.signature.templateEngine !== undefined ? { templateEngine: existing.signature.templateEngine } : {}),
  };
  const line = serializeChainEntry({ hash, previousHash, signedBy: request.identity, signedAt, contentLength: length, provenance: recorded });
  const chainText = ctx.store.readChain(file) ?? "";
  const nextChain = (chainText === "" || chainText.endsWith("\n") ? chainText : chainText + "\n") + line;

  // File first, then signature, then chain: a crash in between leaves a mismatch that fails verification.
  ctx.store.writeProjectFile(file, newContent);
  ctx.store.storeSignature(sig, Buffer.from(newContent, "utf8"), (json) => (ctx.signingKey ? signDetached(ctx.signingKey, json) : undefined));
  ctx.store.writeChain(file, nextChain);
  ctx.audit.log({ event: "update", file, hash, identity: request.identity, detail: request.reason, provenance: recorded });
  return { approved: true, file, hash, previousHash, chainLength: parseChain(nextChain).entries.length };
}

function checkSource(
  ctx: SigContext,
  sourceType: SourceType,
  sourceId: string | undefined,
  store: ContentStore | undefined,
  authorized: (identity: string) => boolean,
): Check {
  if (sourceId === undefined || sourceId === "") {
    return { ok: false, code: "unsigned_source", reason: DENIAL_REASONS.unsigned_source(sourceType), detail: `No sourceId provided for ${sourceType} provenance` };
  }
  if (sourceType === "signed_message") {
    const failed = (detail: string): Check => ({ ok: false, code: "source_verification_failed", reason: DENIAL_REASONS.source_message_failed(sourceId), detail });
    if (store === undefined) return failed(`No content store to resolve sourceId: ${sourceId}`);
    const result = store.verify(sourceId);
    if (!result.verified) return failed(`ContentStore verification failed for sourceId: ${sourceId}`);
    if (!authorized(result.signature.signedBy)) {
      return {
        ok: false,
        code: "unauthorized_identity",
        reason: DENIAL_REASONS.unauthorized_identity(result.signature.signedBy),
        detail: `Source message ${sourceId} was signed by an identity not authorized for this file`,
      };
    }
    return { ok: true, proof: { sourceIdentity: result.signature.signedBy, sourceHash: result.signature.hash } };
  }
  let verified;
  try {
    verified = verifyFile(ctx, sourceId);
  } catch {
    verified = undefined;
  }
  if (verified === undefined || !verified.verified) {
    return {
      ok: false,
      code: "source_verification_failed",
      reason: DENIAL_REASONS.source_template_failed(sourceId),
      detail: `Template verification failed for sourceId: ${sourceId}`,
    };
  }
  return {
    ok: true,
    proof: {
      ...(verified.signedBy !== undefined ? { sourceIdentity: verified.signedBy } : {}),
      ...(verified.hash !== undefined ? { sourceHash: verified.hash } : {}),
    },
  };
}
