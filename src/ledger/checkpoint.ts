import { type KeyObject, createPublicKey, hash, sign, verify } from "node:crypto";

/**
 * Checkpoints in the C2SP tlog-checkpoint form, as a signed note (the format Sigstore's Rekor and the
 * Go checksum database publish):
 *
 *   <origin>\n<tree size>\n<base64 root hash>\n\n— <key name> <base64(key id || Ed25519 signature)>\n
 *
 * The key id is the first 4 bytes of SHA-256(key name || "\n" || 0x01 || public key), the signature
 * covers the three body lines. The signing key is handed in; where it lives is the caller's business.
 */

export interface Checkpoint {
  readonly origin: string;
  readonly size: number;
  readonly root: Buffer;
}

export class CheckpointError extends Error {
  override readonly name = "CheckpointError";
}

const ED25519_ALG = 0x01;
const SIGNATURE_PREFIX = "\u2014 ";
const MAX_NOTE_BYTES = 64 * 1024;

export function checkpointBody(checkpoint: Checkpoint): string {
  if (checkpoint.origin === "" || /[\n\r]/.test(checkpoint.origin)) throw new CheckpointError("origin must be one non-empty line");
  if (checkpoint.root.length !== 32) throw new CheckpointError("root must be 32 bytes");
  return `${checkpoint.origin}\n${checkpoint.size}\n${checkpoint.root.toString("base64")}\n`;
}

export function rawPublicKey(publicKey: KeyObject): Buffer {
  if (publicKey.asymmetricKeyType !== "ed25519") throw new CheckpointError("checkpoint keys must be Ed25519");
  const x = publicKey.export({ format: "jwk" }).x;
  if (x === undefined) throw new CheckpointError("public key has no key material");
  return Buffer.from(x, "base64url");
}

export function keyId(keyName: string, publicKey: KeyObject): Buffer {
  const material = Buffer.concat([Buffer.from(`${keyName}\n`, "utf8"), Buffer.from([ED25519_ALG]), rawPublicKey(publicKey)]);
  return hash("sha256", material, "buffer").subarray(0, 4);
}

/** The verifier key string other tlog tools accept: `<name>+<hex key id>+<base64(0x01 || key)>`. */
export function verifierKey(keyName: string, publicKey: KeyObject): string {
  const encoded = Buffer.concat([Buffer.from([ED25519_ALG]), rawPublicKey(publicKey)]).toString("base64");
  return `${keyName}+${keyId(keyName, publicKey).toString("hex")}+${encoded}`;
}

export function signCheckpoint(checkpoint: Checkpoint, keyName: string, privateKey: KeyObject): string {
  checkKeyName(keyName);
  const body = checkpointBody(checkpoint);
  const signature = sign(null, Buffer.from(body, "utf8"), privateKey);
  const id = keyId(keyName, createPublicKey(privateKey));
  return `${body}\n${SIGNATURE_PREFIX}${keyName} ${Buffer.concat([id, signature]).toString("base64")}\n`;
}

/** Parses a signed checkpoint and checks the signature by `keyName`; throws CheckpointError saying what is wrong. */
export function openCheckpoint(note: string, keyName: string, publicKey: KeyObject): Checkpoint {
  if (Buffer.byteLength(note, "utf8") > MAX_NOTE_BYTES) throw new CheckpointError("checkpoint is too large");
  const split = note.indexOf("\n\n");
  if (split === -1 || !note.endsWith("\n")) throw new CheckpointError("not a signed note: no blank line before the signatures");
  const body = note.slice(0, split + 1);
  const checkpoint = readCheckpointFields(body);
  const id = keyId(keyName, publicKey);
  const lines = note.slice(split + 2, -1).split("\n");
  let sawKey = false;
  for (const line of lines) {
    if (!line.startsWith(SIGNATURE_PREFIX)) throw new CheckpointError("malformed signature line");
    const [name, encoded, extra] = line.slice(SIGNATURE_PREFIX.length).split(" ");
    if (name === undefined || encoded === undefined || extra !== undefined) throw new CheckpointError("malformed signature line");
    if (name !== keyName) continue;
    const blob = Buffer.from(encoded, "base64");
    if (blob.toString("base64") !== encoded || blob.length !== 4 + 64) throw new CheckpointError("malformed signature");
    if (!blob.subarray(0, 4).equals(id)) continue;
    sawKey = true;
    if (verify(null, Buffer.from(body, "utf8"), publicKey, blob.subarray(4))) return checkpoint;
  }
  throw new CheckpointError(sawKey ? "checkpoint signature does not verify" : `checkpoint is not signed by key ${keyName}`);
}

/** Reads a checkpoint's fields without checking any signature (for display; never for trust). */
export function readCheckpointFields(body: string): Checkpoint {
  const lines = body.split("\n");
  const [origin, sizeText, rootText] = lines;
  if (origin === undefined || origin === "" || sizeText === undefined || rootText === undefined) {
    throw new CheckpointError("checkpoint body needs origin, size and root lines");
  }
  if (!/^(0|[1-9]\d{0,15})$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) {
    throw new CheckpointError("checkpoint size is not a decimal count");
  }
  const root = Buffer.from(rootText, "base64");
  if (root.length !== 32 || root.toString("base64") !== rootText) throw new CheckpointError("checkpoint root is not 32 bytes of base64");
  return { origin, size: Number(sizeText), root };
}

function checkKeyName(name: string): void {
  if (name === "" || /[\s+]/.test(name)) throw new CheckpointError("key name must be non-empty with no spaces or '+'");
}
