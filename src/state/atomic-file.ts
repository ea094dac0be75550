import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";

/**
 * Writes a file so that a crash at any instant leaves either the old content or the new, never a
 * mix: write a temporary file beside the target, fsync it, rename it over the target, fsync the
 * directory. `flag: "wx"` on the temporary name refuses to follow a planted symlink.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", mode);
  try {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(tmp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (error) {
    unlinkSync(tmp);
    throw error;
  }
  fsyncDir(dir);
}

export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
