import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isDirectory, regularFileSize } from "../../state/file-kind.js";
import { claudeSettings, settingDirectory } from "./settings-files.js";

/**
 * Claude Code's auto memory: the notes it keeps for a project, with no tool call on either side
 * of the session. 2.1.332 puts the index (`MEMORY.md`) in the context of every session and
 * attaches the notes it recalls for a prompt (`relevant_memories`). They live in
 * `~/.claude/projects/<key>/memory/`, where the key is the project's path (the root of its git
 * working copy, when it has one) with each character but a letter or a digit made `-` (a key of
 * more than 200 characters is cut there and given a hash), or in the `autoMemoryDirectory` its
 * settings name. Found generously: a directory it might use costs a look; one it uses and this
 * misses is notes in the context unjudged.
 */

/** Claude Code cuts a longer key and appends a hash of the path, which is not reproduced: every directory with the cut prefix is taken. */
const MAX_KEY = 200;

/** The auto-memory directories a session started in `cwd` may read, each once; only those that exist. */
export function autoMemoryDirectories(cwd: string, home: string): string[] {
  const out = new Set<string>();
  const projects = join(home, ".claude", "projects");
  for (const root of projectRoots(resolve(cwd))) for (const dir of keyedDirectories(projects, projectKey(root))) out.add(join(dir, "memory"));
  for (const dir of settingsMemoryDirectories(resolve(cwd), home)) out.add(dir);
  return [...out].filter(isDirectory);
}

/** The path as Claude Code makes it a directory name. */
export function projectKey(path: string): string {
  return path.replace(/[^a-zA-Z0-9]/g, "-");
}

/**
 * The start directory itself, and each directory above it that holds `.git` (the nearest is
 * Claude Code's working-copy root; the rest cost a look); a linked worktree's main working copy too.
 */
function projectRoots(cwd: string): string[] {
  const roots = [cwd];
  for (let dir = cwd; ; dir = dirname(dir)) {
    const main = gitRoot(dir);
    if (main !== null) roots.push(dir, ...main);
    if (dirname(dir) === dir) return roots;
  }
}

/** For a directory holding `.git`: [] for a repository's own, the main working copy for a linked worktree's `.git` file; null without `.git`. */
function gitRoot(dir: string): string[] | null {
  const dotGit = join(dir, ".git");
  if (isDirectory(dotGit)) return [];
  // Only a regular file is read: a FIFO would hold the hook.
  if (regularFileSize(dotGit) === null) return null;
  let text: string;
  try {
    text = readFileSync(dotGit, "utf8");
  } catch {
    return null;
  }
  // `gitdir: <main>/.git/worktrees/<name>`: the main working copy is above its `.git`.
  const gitdir = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  if (gitdir === undefined) return [];
  const common = resolve(dir, gitdir, "..", "..");
  return [dirname(common)];
}

/** `projects/<key>`, or for a key past the length Claude Code keeps, each `projects/<cut key>-<hash>`. */
function keyedDirectories(projects: string, key: string): string[] {
  if (key.length <= MAX_KEY) return [join(projects, key)];
  const prefix = `${key.slice(0, MAX_KEY)}-`;
  let names: string[];
  try {
    names = readdirSync(projects);
  } catch {
    return [];
  }
  return names.filter((name) => name.startsWith(prefix)).map((name) => join(projects, name));
}

/** `autoMemoryDirectory` of the user's and the project's settings files (`~/` is the home). */
function settingsMemoryDirectories(cwd: string, home: string): string[] {
  return claudeSettings(cwd, home).flatMap((settings) => settingDirectory((settings as { autoMemoryDirectory?: unknown } | null)?.autoMemoryDirectory, cwd, home) ?? []);
}
