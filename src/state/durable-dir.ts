import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fsyncDir } from "./atomic-file.js";

/**
 * `mkdir -p` whose new directories survive a crash: each one created is recorded by fsyncing its
 * parent, so a file written into it later is not lost with the directory entry that leads to it.
 */
export function ensureDirDurable(path: string, mode = 0o700): void {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      if (!statSync(dir).isDirectory()) throw new Error(`${dir} exists and is not a directory`);
      break;
    } catch (error) {
      if (!(error instanceof Error && "code" in error && error.code === "ENOENT")) throw error;
      missing.push(dir);
      if (dirname(dir) === dir) break;
    }
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, { mode });
    } catch (error) {
      // Another process may create it between our stat and mkdir.
      if (!(error instanceof Error && "code" in error && error.code === "EEXIST")) throw error;
    }
    fsyncDir(dirname(dir));
  }
}
