import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";

export class LedgerLockedError extends Error {
  override readonly name = "LedgerLockedError";
}

/**
 * One writer per ledger: a second appender would fork the chain. The lock is a file created with
 * its owner's pid, put in place with link(2) so that it never exists without the pid in it; a lock
 * whose process is gone (a crash, SIGKILL) is taken over.
 * Returns the function that releases it.
 */
export function acquireWriterLock(path: string): () => void {
  const staged = `${path}.${process.pid}`;
  writeFileSync(staged, `${process.pid}\n`, { mode: 0o600 });
  try {
    return link(path, staged);
  } finally {
    removeIfPresent(staged);
  }
}

function link(path: string, staged: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      linkSync(staged, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = lockOwner(path);
      if (owner !== undefined && isAlive(owner)) {
        throw new LedgerLockedError(
          owner === process.pid
            ? `ledger is already open for writing in this process (${path})`
            : `ledger is open for writing by process ${owner} (${path})`,
        );
      }
      removeIfPresent(path);
      continue;
    }
    return () => {
      if (lockOwner(path) === process.pid) removeIfPresent(path);
    };
  }
  throw new LedgerLockedError(`could not take the ledger lock ${path}: another process raced for it`);
}

function lockOwner(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
