import type { KeyObject } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { writeFileAtomic } from "../state/atomic-file.js";
import { generateSigningKey, parsePrivateKey, parsePublicKey, SigningKeyError } from "./ed25519.js";

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where the Ed25519 key pair lives by default: the user's config directory, outside every
 * project, so an agent confined to its workspace cannot read the private key. `.sig/` never
 * holds either half: a public key an agent could replace would protect nothing.
 */
export function defaultKeyPath(env: Env): string | undefined {
  const base = env.XDG_CONFIG_HOME ?? (env.HOME !== undefined ? join(env.HOME, ".config") : undefined);
  return base === undefined ? undefined : join(base, "provenant", "sig-ed25519.pem");
}

export function publicKeyPathFor(keyPath: string): string {
  return `${keyPath}.pub`;
}

/** Refuses a key path inside the project: the agent's tools reach everything there. */
export function assertOutsideProject(keyPath: string, projectRoot: string): void {
  const real = (p: string): string => {
    try {
      return realpathSync.native(p);
    } catch {
      return resolve(p);
    }
  };
  const abs = resolve(keyPath);
  const realKey = existsSync(abs) ? real(abs) : join(real(dirname(abs)), basename(abs));
  const rel = relative(real(projectRoot), realKey);
  if (!(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))) {
    throw new SigningKeyError("the signing key must live outside the project root, where the agent's tools do not reach");
  }
}

/** Like ssh: a private key that other users can read is refused rather than used. */
export function readPrivateKeyFile(path: string): KeyObject {
  let mode: number;
  let pem: string;
  try {
    mode = statSync(path).mode;
    pem = readFileSync(path, "utf8");
  } catch {
    throw new SigningKeyError(`cannot read the signing key file ${path}`);
  }
  if ((mode & 0o077) !== 0) {
    throw new SigningKeyError(`the signing key file ${path} is readable by other users (mode ${(mode & 0o777).toString(8)}); chmod 600 it`);
  }
  return parsePrivateKey(pem);
}

export interface KeyPairFiles {
  readonly keyPath: string;
  readonly publicKeyPath: string;
  readonly publicKey: string;
}

export function writeNewKeyPair(keyPath: string, projectRoot: string, overwrite: boolean): KeyPairFiles {
  assertOutsideProject(keyPath, projectRoot);
  if (existsSync(keyPath) && !overwrite) throw new SigningKeyError(`${keyPath} already exists; pass --force to replace it`);
  const generated = generateSigningKey();
  mkdirSync(dirname(keyPath), { recursive: true, mode: 0o700 });
  writeFileAtomic(keyPath, generated.privateKeyPem, 0o600);
  const publicKeyPath = publicKeyPathFor(keyPath);
  writeFileAtomic(publicKeyPath, generated.publicKey + "\n", 0o644);
  return { keyPath, publicKeyPath, publicKey: generated.publicKey };
}

/** The signing key: `--key`, then $PROVENANT_SIG_KEY, then the default file if it exists. */
export function findSigningKey(explicit: string | undefined, env: Env, projectRoot: string): KeyObject | undefined {
  const path = explicit ?? env.PROVENANT_SIG_KEY ?? existingDefault(env);
  if (path === undefined) return undefined;
  assertOutsideProject(path, projectRoot);
  return readPrivateKeyFile(path);
}

/** The trusted public key: `--public-key`, then $PROVENANT_SIG_PUBLIC_KEY, then the default `.pub` file. */
export function findPublicKey(explicit: string | undefined, env: Env): KeyObject | undefined {
  const value = explicit ?? env.PROVENANT_SIG_PUBLIC_KEY;
  if (value !== undefined) return parsePublicKey(value);
  const keyPath = defaultKeyPath(env);
  if (keyPath === undefined || !existsSync(publicKeyPathFor(keyPath))) return undefined;
  return parsePublicKey(readFileSync(publicKeyPathFor(keyPath), "utf8"));
}

function existingDefault(env: Env): string | undefined {
  const path = defaultKeyPath(env);
  return path !== undefined && existsSync(path) ? path : undefined;
}
