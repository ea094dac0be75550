import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { isProcessAlive } from "../state/file-lock.js";

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
      if (owner !== undefined && isProcessAlive(owner)) {
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

/**
 * How long a second opener of a project's ledger waits for the first to let go: a hook deciding in
 * its own process holds it for milliseconds (longer on a loaded machine), the guard service for as
 * long as it runs.
 */
export const LEDGER_WAIT_MS = 10_000;

/**
 * `attempt()` again every 10 ms while it fails with LedgerLockedError, for at most `waitMs`, then
 * that error; `meanwhile` runs between tries and ends the wait with its own result when it has one.
 */
export async function retryWhileLocked<T>(attempt: () => T, waitMs: number = LEDGER_WAIT_MS, meanwhile: () => Promise<T | null> = () => Promise.resolve(null)): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return attempt();
    } catch (error) {
      if (!(error instanceof LedgerLockedError) || Date.now() > deadline) throw error;
    }
    const instead = await meanwhile();
    if (instead !== null) return instead;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function lockOwner(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
