import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import type { KeyObject } from "node:crypto";

/**
 * Optional Ed25519 signatures over `.sig.json`. sig's hashes say a file is unchanged since it was
 * signed, but anyone who can write `.sig/` can sign; with a key kept outside the agent's reach and
 * the public key configured outside `.sig/`, a forged `.sig.json` no longer checks.
 *
 * The detached signature lives in a sidecar (`<path>.sig.ed25519`) so sig's readers never see it.
 */
export const PUBLIC_KEY_PREFIX = "ed25519:";

/** Domain separation: these bytes can never be mistaken for a signature over something else. */
const SIGNED_PREFIX = Buffer.from("provenant-sig-ed25519-v1\n", "utf8");

export class SigningKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SigningKeyError";
  }
}

export interface GeneratedSigningKey {
  /** PKCS#8 PEM; goes to a 0600 file outside the project. */
  readonly privateKeyPem: string;
  /** `ed25519:<base64 of the 32 raw bytes>`. */
  readonly publicKey: string;
}

export function generateSigningKey(): GeneratedSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privateKeyPem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    publicKey: formatPublicKey(publicKey),
  };
}

export function formatPublicKey(key: KeyObject): string {
  const jwk = key.export({ format: "jwk" });
  if (jwk.x === undefined) throw new SigningKeyError("not an Ed25519 key");
  return PUBLIC_KEY_PREFIX + Buffer.from(jwk.x, "base64url").toString("base64");
}

/** Accepts `ed25519:<base64>`; anything else is refused with a message that quotes no key bytes. */
export function parsePublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (!trimmed.startsWith(PUBLIC_KEY_PREFIX)) throw new SigningKeyError(`public key must start with "${PUBLIC_KEY_PREFIX}"`);
  const b64 = trimmed.slice(PUBLIC_KEY_PREFIX.length);
  const raw = Buffer.from(b64, "base64");
  if (raw.length !== 32 || raw.toString("base64") !== b64) {
    throw new SigningKeyError("public key must be 32 bytes of canonical base64 after the prefix");
  }
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
}

export function parsePrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: "pem" });
  } catch {
    throw new SigningKeyError("signing key file is not a PEM private key");
  }
  if (key.asymmetricKeyType !== "ed25519") throw new SigningKeyError("signing key is not an Ed25519 key");
  return key;
}

export interface DetachedSignature {
  readonly algorithm: "ed25519";
  readonly publicKey: string;
  readonly signature: string;
}

export function signDetached(privateKey: KeyObject, sigJson: string): DetachedSignature {
  const signature = sign(null, Buffer.concat([SIGNED_PREFIX, Buffer.from(sigJson, "utf8")]), privateKey);
  return { algorithm: "ed25519", publicKey: formatPublicKey(createPublicKey(privateKey)), signature: signature.toString("base64") };
}

/** Verifies against the configured key only; the key named inside the sidecar is informational. */
export function verifyDetached(publicKey: KeyObject, sigJson: string, detached: DetachedSignature): boolean {
  const signature = Buffer.from(detached.signature, "base64");
  if (signature.length !== 64) return false;
  return verify(null, Buffer.concat([SIGNED_PREFIX, Buffer.from(sigJson, "utf8")]), publicKey, signature);
}

export function serializeDetached(detached: DetachedSignature): string {
  return JSON.stringify({ algorithm: detached.algorithm, publicKey: detached.publicKey, signature: detached.signature }, null, 2) + "\n";
}

export function parseDetached(text: string): DetachedSignature | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (v.algorithm !== "ed25519" || typeof v.publicKey !== "string" || typeof v.signature !== "string") return undefined;
  return { algorithm: "ed25519", publicKey: v.publicKey, signature: v.signature };
}
