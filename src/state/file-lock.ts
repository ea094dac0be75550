import { closeSync, linkSync, lstatSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { processIdentity } from "./process-identity.js";

/**
 * An advisory lock between processes sharing one workspace: a lock file created with O_EXCL that
 * holds the owner's pid. Node has no flock, and every store operation is synchronous and short, so
 * a waiter sleeps in small steps. A lock left by a killed process (its pid is gone, is another
 * process's now (state/process-identity.ts), or is our own pid from an earlier life, since this
 * process never holds the lock across calls) is broken.
 */
export class LockTimeoutError extends Error {
  constructor(readonly lockPath: string, readonly holder: string) {
    super(`timed out waiting for ${lockPath} (held by ${holder || "an unknown process"})`);
    this.name = "LockTimeoutError";
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleepMs(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "EPERM";
  }
}

function readHolder(lockPath: string): string | undefined {
  try {
    return readFileSync(lockPath, "utf8");
  } catch {
    return undefined;
  }
}

let own: string | undefined;
/** What this process writes into a lock it takes. */
function ownHolder(): string {
  if (own === undefined) {
    const identity = processIdentity(process.pid);
    own = identity === null ? String(process.pid) : `${process.pid} ${identity}`;
  }
  return own;
}

/** A lock file that was created but never got its pid (killed in between) is stale after this long. */
const EMPTY_LOCK_GRACE_MS = 2_000;

/** What a lock file holds: `<pid> <process identity>`, or the pid alone where there is no identity (and in older locks). */
const LOCK_HOLDER = /^(\d+)(?: (\S+))?\s*$/;

function isStale(lockPath: string, holder: string): boolean {
  const match = LOCK_HOLDER.exec(holder);
  const pid = match === null ? Number.NaN : Number(match[1]);
  if (match !== null && Number.isSafeInteger(pid) && pid > 0 && String(pid) === match[1]) {
    if (pid === process.pid || !isProcessAlive(pid)) return true;
    // A live pid is the holder only if it is the process that started when the lock says: after
    // a crash and a reboot the pid is someone else's, and would hold the lock for good.
    const written = match[2];
    if (written === undefined) return false;
    const now = processIdentity(pid);
    return now !== null && now !== written;
  }
  try {
    return Date.now() - statSync(lockPath).mtimeMs > EMPTY_LOCK_GRACE_MS;
  } catch {
    return false;
  }
}

/**
 * Breaking a stale lock races with other breakers: move it aside under a unique name first, and
 * only delete it if it is still the stale one; a fresh lock moved by mistake is put back.
 */
function breakStaleLock(lockPath: string, staleHolder: string): void {
  const aside = `${lockPath}.stale-${randomBytes(6).toString("hex")}`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return;
  }
  if (readHolder(aside) !== staleHolder) {
    try {
      linkSync(aside, lockPath);
    } catch {
      // Someone took the lock meanwhile; theirs stands.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Already gone.
  }
}

/** A regular file, or nothing any more (released meanwhile). */
function isLockFile(lockPath: string): boolean {
  try {
    return lstatSync(lockPath).isFile();
  } catch {
    return true;
  }
}

function tryAcquire(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, "wx", 0o600);
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, `${ownHolder()}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

export function withFileLock<T>(lockPath: string, body: () => T, timeoutMs = 10_000): T {
  const deadline = Date.now() + timeoutMs;
  let pause = 1;
  while (!tryAcquire(lockPath)) {
    const holder = readHolder(lockPath);
    if (holder === undefined && !isLockFile(lockPath)) {
      // A directory or device where the lock belongs would make every waiter wait out its timeout.
      throw new Error(`${lockPath} is in the way of the lock and is not a lock file`);
    }
    if (holder !== undefined && isStale(lockPath, holder)) {
      breakStaleLock(lockPath, holder);
      continue;
    }
    if (Date.now() > deadline) throw new LockTimeoutError(lockPath, holder?.trim() ?? "");
    sleepMs(pause);
    pause = Math.min(pause * 2, 20);
  }
  try {
    return body();
  } finally {
    try {
      unlinkSync(lockPath);
    } catch {
      // A stale-lock breaker elsewhere may have judged us dead; the lock is gone either way.
    }
  }
}
