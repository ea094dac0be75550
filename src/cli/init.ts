import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { SettingsError, withoutProvenantHooks, withProvenantHooks } from "../adapters/claude-code/settings-hooks.js";
import { writeFileAtomic } from "../state/atomic-file.js";
import { exitWith } from "./exit.js";

/** The command Claude Code runs for each hook: this Node and this checkout's hook entry point. */
export function hookCommand(configPath: string | null): string {
  const entry = fileURLToPath(new URL("./hook-main.js", import.meta.url));
  const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;
  return `${quote(process.execPath)} ${quote(entry)} claude-code${configPath === null ? "" : ` --config ${quote(configPath)}`}`;
}

function settingsPath(scope: "project" | "user", cwd: string, home: string): string {
  return scope === "project" ? join(cwd, ".claude", "settings.json") : join(home, ".claude", "settings.json");
}

function readSettings(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  const text = readFileSync(path, "utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`${path} is not JSON (${error instanceof Error ? error.message : String(error)}); it was left as it is`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new SettingsError(`${path} does not hold a JSON object; it was left as it is`);
  return value as Record<string, unknown>;
}

/**
 * Writes the new settings atomically, after keeping the old file as `settings.json.provenant-backup`
 * (the last state before provenant changed it). Nothing is written when nothing changes.
 */
function writeSettings(path: string, before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  if (JSON.stringify(before) === JSON.stringify(after)) return false;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (existsSync(path)) copyFileSync(path, `${path}.provenant-backup`);
  writeFileAtomic(path, `${JSON.stringify(after, null, 2)}\n`, 0o600);
  return true;
}

export function registerInitCommands(program: Command): void {
  const init = program.commands.find((c) => c.name() === "init") ?? program.command("init").description("install provenant into an agent host");
  init
    .command("claude-code")
    .description("add provenant's hooks to Claude Code's settings.json (user's by default), or remove them")
    .option("--project", "this project's .claude/settings.json")
    .option("--user", "the user's ~/.claude/settings.json (the default)")
    .option("--config <file>", "configuration file the hooks run with (default: ~/.claude/provenant.json)")
    .option("--uninstall", "remove exactly provenant's hooks")
    .action((options: { project?: boolean; user?: boolean; config?: string; uninstall?: boolean }) => {
      try {
        if (options.project === true && options.user === true) throw new SettingsError("--project and --user exclude each other");
        const path = settingsPath(options.project === true ? "project" : "user", process.cwd(), homedir());
        const before = readSettings(path);
        const after = options.uninstall === true ? withoutProvenantHooks(before) : withProvenantHooks(before, hookCommand(options.config ?? null));
        const changed = writeSettings(path, before, after);
        const what = options.uninstall === true ? "removed from" : "installed in";
        process.stdout.write(changed ? `provenant hooks ${what} ${path}\n` : `${path}: nothing to change\n`);
      } catch (error) {
        exitWith("init claude-code", error);
      }
    });
}
