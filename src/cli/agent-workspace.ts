import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { hostConfigValue, PLUGIN_ID } from "../adapters/openclaw/host-config.js";
import { expandHome } from "../core/host-paths.js";
import { displayText } from "../core/safe-display.js";
import { isDirectory, regularFileSize } from "../state/file-kind.js";

/** The directory provenant keeps a workspace's state in. */
const STATE_DIR_NAME = ".provenance";

/** Where a command found the agent's workspace, so it can say so. */
export interface FoundWorkspace {
  readonly dir: string;
  readonly how: string;
}

export interface WorkspaceLookup {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory (OpenClaw's default home). */
  readonly home?: string;
}

/**
 * The agent's workspace, found the way a user would look for it: `--workspace` when given; else
 * `PROVENANT_WORKSPACE`; else the current directory or the nearest one above it that holds
 * provenant's state; else the one OpenClaw's configuration names (provenant's own `workspaceDir`,
 * then the agents' default workspace, then OpenClaw's default `~/.openclaw/workspace` when it
 * exists); else the current directory.
 */
export function findWorkspace(explicit: string | undefined, lookup: WorkspaceLookup): FoundWorkspace {
  if (explicit !== undefined) return { dir: resolve(lookup.cwd, explicit), how: "--workspace" };
  const fromEnv = lookup.env.PROVENANT_WORKSPACE;
  if (fromEnv !== undefined && fromEnv !== "") return { dir: resolve(lookup.cwd, fromEnv), how: "PROVENANT_WORKSPACE" };
  for (let dir = resolve(lookup.cwd); ; dir = dirname(dir)) {
    if (isDirectory(join(dir, STATE_DIR_NAME))) return { dir, how: `the ${STATE_DIR_NAME}/ state in ${dir}` };
    if (dirname(dir) === dir) break;
  }
  const fromOpenClaw = openClawWorkspace(lookup);
  if (fromOpenClaw !== undefined) return fromOpenClaw;
  return { dir: resolve(lookup.cwd), how: "the current directory" };
}

/** The `--workspace` option's help, for every command that finds the agent's workspace as above. */
export const AGENT_WORKSPACE_HELP = "the agent's workspace (default: found from PROVENANT_WORKSPACE, a .provenance/ here or above, or OpenClaw's configuration)";

/** What a command run in the agent's workspace reads and writes (a test gives its own). */
export interface WorkspaceCommandIo {
  readonly cwd: string;
  /** For finding the workspace (PROVENANT_WORKSPACE, OPENCLAW_HOME); the process's by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

/** The process's own: its directory and environment, stdout and stderr. */
export function processWorkspaceIo(): WorkspaceCommandIo {
  return { cwd: process.cwd(), out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) };
}

/** The workspace found as above, which must be a directory; the error says where it was found. */
export function existingWorkspace(explicit: string | undefined, lookup: WorkspaceLookup): string {
  const found = findWorkspace(explicit, lookup);
  if (!isDirectory(found.dir)) throw new Error(`workspace ${found.dir} (from ${found.how}) is not a directory; name it with --workspace`);
  return found.dir;
}

/** Where OpenClaw keeps its state and configuration: `OPENCLAW_HOME`, else the user's home. */
function openClawHome(env: WorkspaceLookup["env"], home: string | undefined): string {
  return env.OPENCLAW_HOME || home || homedir();
}

/** OpenClaw's configuration file: `OPENCLAW_CONFIG_PATH`, else `.openclaw/openclaw.json` in its home. */
export function openClawConfigPath(env: WorkspaceLookup["env"], home: string | undefined): string {
  return env.OPENCLAW_CONFIG_PATH || join(openClawHome(env, home), ".openclaw", "openclaw.json");
}

/** The workspace OpenClaw's configuration gives the agent (see docs/openclaw.md). */
function openClawWorkspace(lookup: WorkspaceLookup): FoundWorkspace | undefined {
  const ocHome = openClawHome(lookup.env, lookup.home);
  const configPath = openClawConfigPath(lookup.env, lookup.home);
  // A configuration this cannot read names no workspace; the other places still count.
  const read = readOpenClawConfig(configPath);
  const config = "config" in read ? read.config : undefined;
  const provenant = hostConfigValue(config, ["plugins", "entries", PLUGIN_ID, "config", "workspaceDir"]);
  if (typeof provenant === "string" && provenant !== "") return { dir: resolve(ocHome, provenant), how: `plugins.entries.${PLUGIN_ID}.config.workspaceDir in ${configPath}` };
  const agents = hostConfigValue(config, ["agents", "defaults", "workspace"]);
  if (typeof agents === "string" && agents !== "") return { dir: resolve(ocHome, expandHome(agents, ocHome)), how: `agents.defaults.workspace in ${configPath}` };
  const fallback = join(ocHome, ".openclaw", "workspace");
  if (isDirectory(fallback)) return { dir: fallback, how: "OpenClaw's default workspace" };
  return undefined;
}

/**
 * OpenClaw's configuration file read as plain JSON, or why it cannot be (OpenClaw also accepts
 * comments, which this does not). Only a regular file, or a link to one, is read: a FIFO put there
 * would hold the command that reads it.
 */
export function readOpenClawConfig(path: string): { readonly config: unknown } | { readonly why: string } {
  if (regularFileSize(path) === null) return { why: "it is not a file" };
  try {
    return { config: JSON.parse(readFileSync(path, "utf8")) as unknown };
  } catch (error) {
    return { why: `it could not be read as JSON (${displayText(error instanceof Error ? error.message : String(error))})` };
  }
}

