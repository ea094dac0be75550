import { lstatSync, readFileSync } from "node:fs";
import { writeFileAtomic } from "../state/atomic-file.js";
import { KeyFileError, parseKeyFile, serializeKeyFile } from "./key-file-format.js";
import type { KeyRing } from "./key-ring.js";

/**
 * The shell side of the key file: a gateway of several processes shares its keys through one
 * file that only its owner can read. A file others can read, or a symlink, is refused rather than
 * used, because either would let something besides the gateway learn the key.
 */
export function loadKeyFile(path: string): KeyRing {
  let stat;
  try {
    stat = lstatSync(path);
  } catch (error) {
    throw new KeyFileError(`cannot read key file ${path}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
  }
  if (stat.isSymbolicLink()) throw new KeyFileError(`key file ${path} is a symlink; refusing it`);
  if (!stat.isFile()) throw new KeyFileError(`key file ${path} is not a regular file`);
  if ((stat.mode & 0o077) !== 0) {
    throw new KeyFileError(
      `key file ${path} has mode ${(stat.mode & 0o777).toString(8).padStart(4, "0")}; it must be 0600 (chmod 600 ${path})`,
    );
  }
  if (typeof process.getuid === "function" && stat.uid !== process.getuid()) {
    throw new KeyFileError(`key file ${path} belongs to uid ${stat.uid}, not to this process (uid ${process.getuid()})`);
  }
  return parseKeyFile(readFileSync(path, "utf8"));
}

/** Writes the ring atomically with mode 0600 (a crash leaves the old file or the new, never half). */
export function saveKeyFile(path: string, ring: KeyRing): void {
  writeFileAtomic(path, serializeKeyFile(ring), 0o600);
}
