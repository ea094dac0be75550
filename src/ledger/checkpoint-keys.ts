import { type KeyObject, createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { writeFileAtomic } from "../state/atomic-file.js";
import { CheckpointError } from "./checkpoint.js";
import { publicKeyPathFor } from "./ledger-paths.js";

/** Creates an Ed25519 key pair: private half PKCS#8 PEM mode 0600, public half SPKI PEM beside it. */
export function generateCheckpointKey(privatePath: string): { publicKey: KeyObject; publicPath: string } {
  if (existsSync(privatePath)) throw new CheckpointError(`refusing to overwrite existing key ${privatePath}`);
  mkdirSync(dirname(privatePath), { recursive: true, mode: 0o700 });
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  writeFileAtomic(privatePath, privateKey.export({ format: "pem", type: "pkcs8" }), 0o600);
  const publicPath = publicKeyPathFor(privatePath);
  writeFileAtomic(publicPath, publicKey.export({ format: "pem", type: "spki" }), 0o644);
  return { publicKey, publicPath };
}

/**
 * Loads the signing key, refusing one the agent could read or have planted: a key file open to
 * group or others, or one inside the workspace the agent works in.
 */
export function loadSigningKey(path: string, workspace: string | undefined): KeyObject {
  if (!existsSync(path)) throw new CheckpointError(`no checkpoint signing key at ${path} (create one with: provenant ledger keygen)`);
  const info = statSync(path);
  if (!info.isFile()) throw new CheckpointError(`checkpoint signing key ${path} is not a regular file`);
  if ((info.mode & 0o077) !== 0) {
    throw new CheckpointError(`checkpoint signing key ${path} is accessible to group or others (mode ${(info.mode & 0o777).toString(8)}); chmod 600 it`);
  }
  // A workspace not made yet holds nothing, but its path may still lie around the key.
  if (workspace !== undefined && isInside(realpathSync(path), existsSync(workspace) ? realpathSync(workspace) : resolve(workspace))) {
    throw new CheckpointError(`checkpoint signing key ${path} is inside the workspace, within the agent's reach; move it out`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(path));
  } catch {
    throw new CheckpointError(`checkpoint signing key ${path} is not a PEM private key`);
  }
  if (key.asymmetricKeyType !== "ed25519") throw new CheckpointError(`checkpoint signing key ${path} is not Ed25519`);
  return key;
}

export function loadPublicKey(path: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(readFileSync(path));
  } catch {
    throw new CheckpointError(`${path} is not a PEM public key`);
  }
  if (key.asymmetricKeyType !== "ed25519") throw new CheckpointError(`${path} is not an Ed25519 public key`);
  return key;
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}
