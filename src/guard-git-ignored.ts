import { spawnSync } from "node:child_process";
import { resolve, sep } from "node:path";

/** A predicate on absolute paths: true for what a search skips. */
export type SkippedPath = (absolute: string) => boolean;

export const NOTHING_SKIPPED: SkippedPath = () => false;

/**
 * What a search that honours `.gitignore` (ripgrep, so Claude Code's Grep and Glob) never reads
 * beneath `dir`: the untracked files and directories git ignores there. A tracked file stays
 * visible, as ripgrep's own reading of the patterns could only hide more. Outside a repository, or
 * when git fails, nothing is skipped and the whole tree is judged.
 *
 * git runs with the repository's fsmonitor and untracked cache off: the guard must not run a
 * command the repository's own configuration names.
 */
export function gitIgnored(dir: string): SkippedPath {
  const run = spawnSync(
    "git",
    ["-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-C", dir, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
    { encoding: "utf8", timeout: 5_000, maxBuffer: 16 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } },
  );
  if (run.error !== undefined || run.status !== 0) return NOTHING_SKIPPED;
  const files = new Set<string>();
  const dirs: string[] = [];
  for (const entry of run.stdout.split("\0")) {
    if (entry === "") continue;
    if (entry.endsWith("/")) dirs.push(resolve(dir, entry));
    else files.add(resolve(dir, entry));
  }
  if (files.size === 0 && dirs.length === 0) return NOTHING_SKIPPED;
  return (absolute) => files.has(absolute) || dirs.some((d) => absolute === d || absolute.startsWith(d + sep));
}
