import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expandHome } from "../../core/host-paths.js";
import { regularFileSize } from "../../state/file-kind.js";

/**
 * Claude Code's settings files of the user and of a project (`~/.claude/settings.json`,
 * `.claude/settings.json`, `.claude/settings.local.json`), parsed; one that is missing, is not a
 * regular file or is not JSON is left out. Read for the directories they name.
 */
export function claudeSettings(projectDir: string, home: string): unknown[] {
  const out: unknown[] = [];
  for (const file of [join(home, ".claude", "settings.json"), join(projectDir, ".claude", "settings.json"), join(projectDir, ".claude", "settings.local.json")]) {
    // Only a regular file is read: a FIFO would hold the hook.
    if (regularFileSize(file) === null) continue;
    try {
      out.push(JSON.parse(readFileSync(file, "utf8")));
    } catch {
      continue;
    }
  }
  return out;
}

/** A directory a setting names, as Claude Code takes it (`~/` is the home, a relative one from the project); null for anything else. */
export function settingDirectory(value: unknown, projectDir: string, home: string): string | null {
  return typeof value === "string" && value !== "" ? resolve(projectDir, expandHome(value, home)) : null;
}
