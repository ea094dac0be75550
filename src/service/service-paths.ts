import { lstatSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * Where the guard service of this user listens: `guard.sock` in a directory only this user can
 * enter (`PROVENANT_SERVICE_DIR`, else `$XDG_RUNTIME_DIR/provenant`, else `/tmp/provenant-<uid>`).
 * The directory is the access check for connecting (the service checks the peer's uid as well):
 * one owned by anyone else, reachable by group or others, or a symlink is refused, and neither
 * side uses it.
 */
export function serviceDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const explicit = env["PROVENANT_SERVICE_DIR"];
  if (explicit !== undefined && isAbsolute(explicit)) return explicit;
  const runtime = env["XDG_RUNTIME_DIR"];
  if (runtime !== undefined && isAbsolute(runtime)) return join(runtime, "provenant");
  return join(tmpdir(), `provenant-${uid()}`);
}

export const SOCKET_NAME = "guard.sock";
/** Held (pid inside) by the one service that listens on the directory's socket. */
export const LOCK_NAME = "service.lock";

export function uid(): number {
  return typeof process.getuid === "function" ? process.getuid() : -1;
}

export class ServiceDirError extends Error {
  override readonly name = "ServiceDirError";
}

/** Throws ServiceDirError unless `dir` is a real directory of this user with mode 0700 or stricter. */
export function checkServiceDir(dir: string): void {
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new ServiceDirError(`${dir} is not a directory (a symlink or a file)`);
  if (stat.uid !== uid()) throw new ServiceDirError(`${dir} belongs to uid ${stat.uid}, not to this user (${uid()})`);
  if ((stat.mode & 0o077) !== 0) throw new ServiceDirError(`${dir} has mode ${(stat.mode & 0o777).toString(8)}; it must be 700`);
}

/** Creates the directory (mode 0700) if it is missing, then checks it. */
export function ensureServiceDir(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  checkServiceDir(dir);
}
