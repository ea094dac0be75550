import { realpathSync, statSync } from "node:fs";

/**
 * What a path is on disk, links followed, as a yes or no: anything that cannot be looked at (it
 * is not there, a link dangles, a directory above cannot be entered) is neither.
 */

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The size of a regular file, or null for anything else. */
export function regularFileSize(path: string): number | null {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.size : null;
  } catch {
    return null;
  }
}

/** Where a path leads with every link resolved, or null when it leads nowhere. */
export function realPathOrNull(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch {
    return null;
  }
}
