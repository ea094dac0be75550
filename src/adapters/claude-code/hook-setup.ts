import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { ConfigError } from "../../core/config-error.js";
import type { HookEvent } from "./hook-event.js";

/**
 * Where a hook's session lives and what configuration it runs under.
 *
 * The project is Claude Code's `CLAUDE_PROJECT_DIR` (set for every hook, and unchanged when the
 * session `cd`s elsewhere), else the event's `cwd`: state in its `.provenance/`, protected files
 * relative to it. The configuration is the file named on the hook's command line, else the user's
 * `~/.claude/provenant.json` (itself a protected file), else the defaults. Never a file in the
 * project: a repository somebody else wrote would then choose how far provenant trusts it.
 */
export function projectDirOf(event: Pick<HookEvent, "cwd">, env: Readonly<Record<string, string | undefined>>): string {
  const fromHost = env["CLAUDE_PROJECT_DIR"];
  return fromHost !== undefined && isAbsolute(fromHost) && !fromHost.includes("\0") ? fromHost : event.cwd;
}

/** The user's configuration for every project, beside Claude Code's own user settings. */
export const USER_CONFIG_FILE = ".claude/provenant.json";

/** A Claude Code turn runs many model steps: the iteration cap is a runaway stop, not a step budget. */
const CLAUDE_CODE_MAX_ITERATIONS = 500;

/** Reads the configuration (JSON); `host` is always `claude-code`. Throws ConfigError naming the file. */
export function hookConfig(configPath: string | null, homeDir: string = homedir()): { readonly config: Record<string, unknown> } {
  const candidate = configPath ?? join(homeDir, USER_CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(candidate, "utf8");
  } catch (error) {
    if (configPath === null && (error as NodeJS.ErrnoException).code === "ENOENT") return { config: { host: "claude-code", maxIterations: CLAUDE_CODE_MAX_ITERATIONS } };
    throw new ConfigError([{ key: candidate, message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([{ key: candidate, message: `is not JSON (${error instanceof Error ? error.message : String(error)})` }]);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new ConfigError([{ key: candidate, message: "must hold a JSON object" }]);
  const host = (value as { host?: unknown }).host;
  if (host !== undefined && host !== "claude-code") throw new ConfigError([{ key: "host", message: `is ${JSON.stringify(host)} in ${candidate}; Claude Code's hooks run with host "claude-code"` }]);
  return { config: { maxIterations: CLAUDE_CODE_MAX_ITERATIONS, ...(value as Record<string, unknown>), host: "claude-code" } };
}
