import { configuredEngines } from "./sig-config.js";
import { contentLength, hashContent } from "./hash.js";
import { signDetached } from "./ed25519.js";
import { resolveContainedPath } from "./project-path.js";
import { parseChain, serializeChainEntry } from "./update-chain.js";
import type { Signature } from "./signature.js";
import type { SigContext } from "./sig-context.js";

export interface SignOptions {
  readonly identity?: string;
  readonly engine?: string;
  /** Used when neither `identity` nor the config's `sign.identity` is set (sig: $USER, then "unknown"). */
  readonly fallbackIdentity?: string;
}

export class FileNotFoundError extends Error {
  constructor(readonly file: string) {
    super(`File not found: ${file}`);
    this.name = "FileNotFoundError";
  }
}

/**
 * Signs one project file: `.sig.json`, the signed text beside it, the Ed25519 sidecar when a key
 * is configured. A file that already has an update chain gets a chain entry too, so the chain
 * stays anchored to the signature head.
 */
export function signFile(ctx: SigContext, filePath: string, options: SignOptions = {}): Signature {
  const file = resolveContainedPath(ctx.projectRoot, filePath);
  const content = ctx.store.readProjectFile(file);
  if (content === undefined) throw new FileNotFoundError(file);
  const identity = nonEmpty(options.identity) ?? nonEmpty(ctx.config.sign?.identity) ?? nonEmpty(options.fallbackIdentity) ?? "unknown";
  const engine = nonEmpty(options.engine) ?? configuredEngines(ctx.config)?.[0];
  const previous = ctx.store.loadSignature(file);
  const sig: Signature = {
    file,
    hash: hashContent(content),
    algorithm: "sha256",
    signedBy: identity,
    signedAt: new Date(ctx.clock()).toISOString(),
    contentLength: contentLength(content),
    ...(engine !== undefined ? { templateEngine: engine } : {}),
  };
  ctx.store.storeSignature(sig, content, (json) => (ctx.signingKey ? signDetached(ctx.signingKey, json) : undefined));
  const chainText = ctx.store.readChain(file);
  if (chainText !== undefined && parseChain(chainText).entries.length > 0 && previous.status === "found" && previous.signature.hash !== sig.hash) {
    const line = serializeChainEntry({
      hash: sig.hash,
      previousHash: previous.signature.hash,
      signedBy: identity,
      signedAt: sig.signedAt,
      contentLength: sig.contentLength,
      provenance: { sourceType: "signed_template", sourceId: file, reason: "re-signed with sign" },
    });
    ctx.store.writeChain(file, (chainText.endsWith("\n") || chainText === "" ? chainText : chainText + "\n") + line);
  }
  ctx.audit.log({ event: "sign", file, hash: sig.hash, identity });
  return sig;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
