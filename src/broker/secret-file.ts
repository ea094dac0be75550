import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomic } from "../state/atomic-file.js";

/**
 * The shared HMAC secret. The daemon makes 32 random bytes at every start and writes them base64 to the
 * secret file (0600, atomically, never through a symlink). The MAC key is the file's text, trimmed of
 * surrounding white space, as UTF-8 bytes: that is what the reference's wrapper signs with, so either
 * wrapper works against either daemon.
 */
export const SECRET_BYTES = 32;

export class SecretFileError extends Error {}

export function provisionSecret(path: string): Buffer {
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  let st;
  try {
    st = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (st?.isSymbolicLink()) throw new SecretFileError(`refusing to write the secret through a symlink: ${path}`);
  if (st !== undefined && !st.isFile()) throw new SecretFileError(`secret file ${path} exists and is not a regular file`);
  const text = randomBytes(SECRET_BYTES).toString("base64");
  writeFileAtomic(path, `${text}\n`, 0o600);
  return Buffer.from(text, "utf8");
}

/** Reads the key the way a wrapper does: no symlinks, a regular file, a sane size. */
export function readSecretFile(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new SecretFileError(`refusing to read the secret through a symlink: ${path}`);
    throw new SecretFileError(`cannot read secret file ${path}: ${code ?? "error"}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SecretFileError(`secret file ${path} is not a regular file`);
    if (st.size > 4096) throw new SecretFileError(`secret file ${path} is too large`);
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    const key = buf.subarray(0, off).toString("utf8").trim();
    if (key === "") throw new SecretFileError(`secret file ${path} is empty`);
    return Buffer.from(key, "utf8");
  } finally {
    closeSync(fd);
  }
}
