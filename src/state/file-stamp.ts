import { lstatSync } from "node:fs";

/** What tells one version of a state file from the next, when another process may replace it. */
export interface FileStamp {
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

/** A path that could not even be examined: never the same as anything, so it is always re-read. */
const UNEXAMINABLE: FileStamp = Object.freeze({ ino: -1n, size: -1n, mtimeNs: -1n, ctimeNs: -1n });

/** The path itself (a symbolic link is not followed), null when it does not exist; never throws. */
export function stampOf(path: string): FileStamp | null {
  try {
    const st = lstatSync(path, { bigint: true });
    return { ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs };
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return null;
    return UNEXAMINABLE;
  }
}

export function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  if (a === null || b === null) return a === b;
  if (a === UNEXAMINABLE || b === UNEXAMINABLE) return false;
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}
