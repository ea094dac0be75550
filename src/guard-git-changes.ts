import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

/**
 * The files a patch-printing git command shows a change of (`git diff`, `git show`, `git log -p`,
 * `git stash show`): what it printed is those files' words, so its output is as trusted as the
 * worst of them. Asked of git itself, as `--name-only` of the same revisions and paths.
 *
 * - `null`: `dir` is not in a repository (such a command printed nothing of one);
 * - the repository's top level, and the changed files as absolute paths, or `files: null` when git
 *   could not say (arguments this reading does not keep, a failure, too many names): the caller
 *   then judges the whole repository.
 *
 * git runs with the repository's fsmonitor, external diff, text conversion and signature checks off:
 * the guard runs no command the repository's configuration names beyond what the call itself ran.
 */
export type ChangedFiles = { readonly top: string; readonly files: readonly string[] | null } | null;

const MAX_NAMES = 20_000;
const SAFE_CONFIG = ["-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-c", "diff.external=", "-c", "diff.relative=false", "-c", "log.showSignature=false"];
/** Options whose value is the next word (so that word is not taken for a revision). */
const VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "-n", "--max-count", "--skip", "--since", "--after", "--until", "--before", "--author", "--committer", "--grep",
  "-S", "-G", "-O", "-U", "--unified", "--format", "--pretty", "--output", "--diff-filter", "--src-prefix",
  "--dst-prefix", "--line-prefix", "-L", "--encoding", "--date", "--decorate-refs", "--decorate-refs-exclude",
]);
/**
 * Options that only choose what is compared or which commits are shown, kept (with their value);
 * every other option is dropped, which shows more, never less.
 */
const KEPT_OPTIONS: ReadonlySet<string> = new Set(["--cached", "--staged", "--merge-base", "--no-index", "--root", "--all", "--first-parent", "--merges", "--no-merges", "-m", "--cc", "-c"]);
const KEPT_VALUE_OPTIONS: ReadonlySet<string> = new Set(["-n", "--max-count", "--skip", "--since", "--after", "--until", "--before", "--author", "--committer"]);

export function changedFiles(subcommand: string, args: readonly string[], dir: string): ChangedFiles {
  const shown = git(["-C", dir, "rev-parse", "--show-toplevel"]);
  if (shown === null) return null;
  const top = shown.trim();
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") {
      kept.push(...args.slice(i));
      break;
    }
    if (a.startsWith("-")) {
      const name = a.startsWith("--") ? a.split("=", 1)[0] ?? a : a.slice(0, 2);
      if (KEPT_OPTIONS.has(a) || /^-\d+$/.test(a)) kept.push(a);
      else if (KEPT_VALUE_OPTIONS.has(a) && i + 1 < args.length) kept.push(a, args[++i] as string);
      else if (KEPT_VALUE_OPTIONS.has(name) && a !== name) kept.push(a);
      else if (VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    // `rev:path` prints that one file, which is judged as a file read where the command is read.
    if (!a.includes(":")) kept.push(a);
  }
  let command: string[];
  // Without rename detection a moved file is named at both ends: its old path's words are in the patch too.
  if (subcommand === "diff") command = ["diff", "--name-only", "--no-renames", "--no-ext-diff", "--no-textconv", "-z", ...kept];
  else if (subcommand === "show") command = ["show", "--name-only", "--no-renames", "--format=", "--no-ext-diff", "--no-textconv", "-z", ...kept];
  else if (subcommand === "log" || subcommand === "whatchanged") command = ["log", "--name-only", "--no-renames", "--format=", "-z", ...kept];
  else if (subcommand === "stash") command = ["stash", "show", "--name-only", "--no-renames", "--include-untracked", "-z", ...kept.filter((a) => a !== "show")];
  else return { top, files: null };
  const out = git(["-C", dir, ...command]);
  if (out === null) return { top, files: null };
  const files = [...new Set(out.split(/[\0\n]/).filter((name) => name !== ""))];
  if (files.length > MAX_NAMES) return { top, files: null };
  return { top, files: files.map((name) => resolve(top, name)) };
}

function git(args: readonly string[]): string | null {
  const run = spawnSync("git", [...SAFE_CONFIG, ...args], {
    encoding: "utf8",
    timeout: 5_000,
    maxBuffer: 16 * 1024 * 1024,
    stdio: ["ignore", "pipe", "ignore"],
    env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_PAGER: "cat", GIT_EXTERNAL_DIFF: "" },
  });
  return run.error !== undefined || run.status !== 0 ? null : run.stdout;
}
