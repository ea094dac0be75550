import { chmodSync, closeSync, fsyncSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { ConfigFileSpec } from "./broker-config.js";
import { isProcessAlive } from "../state/file-lock.js";
import { renderTemplate } from "./config-template.js";

/**
 * Private per-run directories for `config_file` tools, pointed to by XDG_CONFIG_HOME. They live under
 * one root owned by the daemon; each is named with the daemon's pid so a restarted daemon can tell its
 * predecessor's leftovers (whose pid is gone) from a sibling daemon's live runs.
 */
const PREFIX = "cfg-";

export function ensurePrivateRoot(root: string): void {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const st = lstatSync(root);
  if (!st.isDirectory()) throw new Error(`temp root ${root} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new Error(`temp root ${root} is not owned by uid ${uid}`);
  if ((st.mode & 0o077) !== 0) throw new Error(`temp root ${root} is accessible to other users (mode ${(st.mode & 0o777).toString(8)})`);
}

export function createToolConfigDir(root: string, spec: ConfigFileSpec, values: ReadonlyMap<string, string>): string {
  const content = renderTemplate(spec.template, values);
  // umask 0177 while we create anything: even a mode mistake below cannot make a file group- or world-readable.
  const previous = process.umask(0o177);
  const dir = mkdtempSync(join(root, `${PREFIX}${process.pid}-`));
  try {
    // Directories need their search bit, which umask 0177 strips: set 0700 explicitly.
    chmodSync(dir, 0o700);
    let sub = dir;
    for (const segment of spec.xdgSubdir.split("/").filter((s) => s !== "")) {
      sub = join(sub, segment);
      mkdirSync(sub);
      chmodSync(sub, 0o700);
    }
    const fd = openSync(join(sub, spec.filename), "wx", 0o600);
    try {
      const bytes = Buffer.from(content, "utf8");
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return dir;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    process.umask(previous);
  }
}

export function removeToolConfigDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Removes directories left by daemons that are no longer running; returns how many. */
export function sweepStaleConfigDirs(root: string): number {
  let removed = 0;
  for (const name of readdirSync(root)) {
    const m = /^cfg-(\d+)-/.exec(name);
    if (m === null) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || isProcessAlive(pid)) continue;
    rmSync(join(root, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}
