import { readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { isProcessAlive } from "./file-lock.js";

/** writeFileAtomic's temporary name: `.<target>.<pid>.<12 hex>.tmp`. */
const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/**
 * A process killed in the middle of writeFileAtomic leaves its temporary file behind (the target
 * is untouched). Those of dead processes are removed so staged content does not pile up in copies.
 */
export function removeStaleTempFiles(dir: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const match = TEMP_NAME.exec(name);
    if (match === null || match[1] === undefined) continue;
    const pid = Number.parseInt(match[1], 10);
    if (pid === process.pid || isProcessAlive(pid)) continue;
    try {
      unlinkSync(join(dir, name));
      removed += 1;
    } catch {
      // Another process cleaned it first.
    }
  }
  return removed;
}
