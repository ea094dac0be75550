import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// One list for the worker: the unit files share a worker's modules (vitest.config.ts), so a
// helper module that makes directories is loaded once for many files, and a removal hook it
// registered itself would run after the first file only.
const made: string[] = [];

/**
 * A temporary directory, removed when the test file that made it ends (`removeTempDirs`, run
 * after every file by test/remove-temp-dirs.ts). A mutation run executes a file's tests
 * thousands of times: a directory left behind per test fills /tmp.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory `tempDir` made since the last call. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
