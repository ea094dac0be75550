import { isAbsolute } from "node:path";
import type { ExecReading } from "./exec-trust.js";
import type { GateCommand, GateCommandPath } from "./gate.js";

/** How many of a command's words are read as paths; a command with more is not read word by word. */
export const MAX_COMMAND_PATHS = 512;

/**
 * Where a shell command may touch files by name, for the gates (GateCommand): the files it writes
 * by name (redirections, `tee`, `cp`'s destination, `dd of=`), and every word of it that may be a
 * path, each with every place it may land. A relative path lands in the directory the command
 * starts in (`base`) and in each directory its `cd`s may reach, since a `cd` that fails leaves it
 * where it was. Paths are joined, not normalised: the gate's resolver follows `..` and `~` the
 * kernel's and the shell's way (`..` after a linked directory is the link target's parent).
 */
export function commandFiles(reading: ExecReading, base: string): GateCommand {
  const within = (dir: string, path: string) => (path.startsWith("~") || isAbsolute(path) ? path : `${dir}/${path}`);
  const directories = [base, ...reading.directories.known.map((dir) => within(base, dir))];
  const place = (raw: string): GateCommandPath => ({ raw, readings: [...new Set(directories.map((dir) => within(dir, raw)))] });
  const candidates = new Set<string>();
  for (const word of reading.words) {
    for (const path of pathsOfWord(word)) candidates.add(path);
  }
  const named = [...candidates];
  return {
    written: reading.files.map(place),
    named: named.length > MAX_COMMAND_PATHS ? null : named.map(place),
    mayChangeNamed: reading.mayWriteUnnamed,
  };
}

/**
 * The paths a word may name: the word itself, and an option's value (`--output=x`, `of=x`). Words
 * no file can be named by (empty, a line break, a NUL, a component longer than a file name may be)
 * name none: a script's text is not a path.
 */
function pathsOfWord(word: string): string[] {
  const out: string[] = [];
  const eq = word.indexOf("=");
  for (const path of eq > 0 ? [word, word.slice(eq + 1)] : [word]) {
    if (path === "" || path.length > 4096 || /[\n\0]/.test(path)) continue;
    if (path.split("/").some((part) => Buffer.byteLength(part) > 255)) continue;
    out.push(path);
  }
  return out;
}
