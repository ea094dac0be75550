import { execFile } from "node:child_process";
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { isAbsolute } from "node:path";

/**
 * Resolves a credential `source`:
 * - `pass:<path>`: the output of `pass show <path>` (the real program, with the daemon's GnuPG and
 *   password-store environment), without its final newline;
 * - `env:<NAME>`: NAME from `proxy.env_file` when one is configured (KEY=VALUE lines), else from the
 *   daemon's own environment;
 * - `file:<absolute path>`: the file's content without its final newline; the file must be a regular
 *   file (no symlink) owned by the daemon's user and not writable by group or others.
 * Errors name the source kind and what failed, never the value.
 */
export class CredentialError extends Error {}

export interface CredentialContext {
  readonly passBinary: string;
  readonly envFile?: string;
  readonly processEnv: NodeJS.ProcessEnv;
}

const PASS_TIMEOUT_MS = 30_000;

function stripFinalNewline(s: string): string {
  return s.endsWith("\r\n") ? s.slice(0, -2) : s.endsWith("\n") ? s.slice(0, -1) : s;
}

function readSecureFile(path: string, what: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CredentialError(code === "ELOOP" ? `${what}: refusing a symlink` : `${what}: cannot open (${code ?? "error"})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new CredentialError(`${what}: not a regular file`);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) throw new CredentialError(`${what}: not owned by the daemon's user`);
    if ((st.mode & 0o022) !== 0 || (st.mode & 0o007) !== 0) throw new CredentialError(`${what}: mode ${(st.mode & 0o777).toString(8)} is too open (use 0600 or 0640)`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

function runPass(binary: string, entry: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (!isAbsolute(binary)) return Promise.reject(new CredentialError("pass: pass_binary must be absolute"));
  if (entry === "" || entry.startsWith("-") || entry.split("/").includes("..")) {
    return Promise.reject(new CredentialError("pass: invalid entry name"));
  }
  return new Promise((resolve, reject) => {
    execFile(binary, ["show", entry], { env, timeout: PASS_TIMEOUT_MS, maxBuffer: 1024 * 1024, encoding: "utf8" }, (error, stdout) => {
      if (error !== null) reject(new CredentialError(`pass: lookup failed (${error.code ?? "error"})`));
      else resolve(stripFinalNewline(stdout));
    });
  });
}

function envFileValue(path: string, name: string): string | undefined {
  for (const line of readSecureFile(path, "env file").split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0 && line.slice(0, eq).trim() === name) return stripFinalNewline(line.slice(eq + 1).replace(/\r$/, ""));
  }
  return undefined;
}

export async function fetchCredential(source: string, ctx: CredentialContext): Promise<string> {
  let value: string | undefined;
  if (source.startsWith("pass:")) value = await runPass(ctx.passBinary, source.slice(5), ctx.processEnv);
  else if (source.startsWith("env:")) {
    const name = source.slice(4);
    value = ctx.envFile !== undefined ? envFileValue(ctx.envFile, name) : ctx.processEnv[name];
    if (value === undefined) throw new CredentialError("env: variable not set");
  } else if (source.startsWith("file:")) {
    const path = source.slice(5);
    if (!isAbsolute(path)) throw new CredentialError("file: path must be absolute");
    value = stripFinalNewline(readSecureFile(path, "file"));
  } else throw new CredentialError("unsupported credential source");
  if (value === "") throw new CredentialError("credential is empty");
  return value;
}
