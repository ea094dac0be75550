import { resolve } from "node:path";
import { procLink, procText } from "../../state/process-files.js";
import { claudeSettings, settingDirectory } from "./settings-files.js";

/**
 * The directories a Claude Code session works in beside its start directory, whose skills,
 * commands and sub-agents it lists for the model at start (and whose `CLAUDE.md` it may load): those it was
 * launched with (`--add-dir`, the SDK's `additionalDirectories`) and those its settings add
 * (`permissions.additionalDirectories`). No hook event names them, so they are read where Claude
 * Code reads them: its own command line (the hook's ancestors, on Linux through /proc) and the
 * settings files. Generous: a word that is not a directory costs nothing. The same command line
 * says whether its prompts can carry more than text.
 */

/** The hook runs under a shell Claude Code starts; a few levels up is plenty, and bounds the walk. */
const MAX_ANCESTORS = 8;

/**
 * The values of `--add-dir` in a command line: each word after it up to the next option (it takes
 * several), and `--add-dir=<dir>`.
 */
export function addDirArguments(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word.startsWith("--add-dir=")) out.push(word.slice("--add-dir=".length));
    if (word !== "--add-dir") continue;
    while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith("-")) out.push(argv[++i] as string);
  }
  return out.filter((d) => d !== "");
}

/**
 * The `--add-dir` directories of `pid` and of each process above it, resolved against that
 * process's working directory. Empty where /proc cannot be read (not Linux, or the processes are gone).
 */
export function launchDirectories(pid: number): string[] {
  // A child forked but not yet running its program still shows its parent's command line: each once.
  const out = new Set<string>();
  for (const { argv, cwd } of launchCommandLines(pid)) for (const dir of addDirArguments(argv)) out.add(resolve(cwd ?? "/", dir));
  return [...out];
}

/**
 * Whether Claude Code above `pid` takes its prompts as `--input-format stream-json` messages,
 * which may hold images and documents beside text (the Agent SDK always launches it so); null
 * when the hook's own command line cannot be read, so nothing can be told.
 */
export function takesContentBlocks(pid: number): boolean | null {
  const lines = launchCommandLines(pid);
  if (lines.length === 0) return null;
  return lines.some(({ argv }) => argv.some((word, i) => word === "--input-format=stream-json" || (word === "--input-format" && argv[i + 1] === "stream-json")));
}

/**
 * Whether Claude Code above `pid` was told to keep no transcript (`--no-session-persistence`, as
 * the Agent SDK's `persistSession: false` launches it); null when no command line can be read.
 */
export function keepsNoTranscript(pid: number): boolean | null {
  const lines = launchCommandLines(pid);
  if (lines.length === 0) return null;
  return lines.some(({ argv }) => argv.includes("--no-session-persistence"));
}

/** Command-line flags that bring settings or plugins, and so hooks, of their own. */
const FLAGS_WITH_HOOKS: readonly string[] = ["--settings", "--plugin-dir"];

/** Whether Claude Code above `pid` was given a settings file or a plugin directory (`--settings`, `--plugin-dir`); null where its command line is not found. */
export function addsHookSources(pid: number): boolean | null {
  const lines = launchCommandLines(pid);
  if (lines.length === 0) return null;
  return lines.some(({ argv }) => argv.some((word) => FLAGS_WITH_HOOKS.some((flag) => word === flag || word.startsWith(`${flag}=`))));
}

/** The command lines of `pid` and of the processes above it (with their working directories). */
function launchCommandLines(pid: number): { readonly argv: readonly string[]; readonly cwd: string | undefined }[] {
  const out: { argv: string[]; cwd: string | undefined }[] = [];
  // pid 1 (and 0, where a chain ends) is the system's, never Claude Code.
  for (let current = pid, level = 0; current > 1 && level < MAX_ANCESTORS; current = parentOf(current), level++) {
    const argv = procText(current, "cmdline")?.split("\0");
    if (argv === undefined) break;
    out.push({ argv, cwd: procLink(current, "cwd") });
  }
  return out;
}

/** `permissions.additionalDirectories` of the user's and the project's settings files. */
export function settingsDirectories(projectDir: string, home: string): string[] {
  return claudeSettings(projectDir, home).flatMap((settings) => {
    const dirs = (settings as { permissions?: { additionalDirectories?: unknown } } | null)?.permissions?.additionalDirectories;
    return Array.isArray(dirs) ? dirs.flatMap((dir: unknown) => settingDirectory(dir, projectDir, home) ?? []) : [];
  });
}

/**
 * The ppid in /proc/<pid>/stat: the field after the state, which follows the command's closing
 * parenthesis (a command's name may hold spaces and parentheses). 0 when it cannot be read.
 */
function parentOf(pid: number): number {
  const stat = procText(pid, "stat") ?? "";
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) || 0;
}
