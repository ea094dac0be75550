import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomic } from "../state/atomic-file.js";

/**
 * The shared HMAC secret, handled exactly as claw-wrap handles it. The daemon makes 32 random bytes at
 * every start and writes them as standard padded base64 and one newline (0600, atomically, never
 * through a symlink; a directory it has to create is 0700). Wrapper and daemon alike read the file,
 * trim surrounding white space and base64-decode it: the MAC key is the decoded bytes, never the
 * file's text. Keying with the text is what made every request of the reference wrapper fail.
 */
export const SECRET_BYTES = 32;

export class SecretFileError extends Error {}

export function provisionSecret(path: string): Buffer {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let st;
  try {
    st = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (st?.isSymbolicLink()) throw new SecretFileError(`refusing to write the secret through a symlink: ${path}`);
  if (st !== undefined && !st.isFile()) throw new SecretFileError(`secret file ${path} exists and is not a regular file`);
  const key = randomBytes(SECRET_BYTES);
  writeFileAtomic(path, `${key.toString("base64")}\n`, 0o600);
  return key;
}

// Go's base64.StdEncoding: the standard alphabet with padding. Its decoder skips CR and LF anywhere
// and tolerates non-zero trailing bits, so this accepts what it accepts and nothing else.
const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The MAC key from the file's text: trimmed, then decoded as Go's StdEncoding decodes it. */
export function decodeSecretText(text: string): Buffer {
  const b64 = text.trim().replace(/[\r\n]/g, "");
  if (!STD_BASE64.test(b64)) throw new SecretFileError("failed to decode secret");
  const key = Buffer.from(b64, "base64");
  if (key.length === 0) throw new SecretFileError("secret file is empty");
  return key;
}

/** Reads the key the way the reference does (see decodeSecretText): no symlinks, a regular file, a sane size. */
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
    try {
      return decodeSecretText(buf.subarray(0, off).toString("utf8"));
    } catch (error) {
      throw new SecretFileError(`secret file ${path}: ${(error as Error).message}`);
    }
  } finally {
    closeSync(fd);
  }
}
