import { isAbsolute, join } from "node:path";
import { parseShell, visitNodes, type BashCommand, type BashRedirect, type BashWord } from "./bash-ast.js";
import { braceExpansions } from "./brace-expansion.js";
import { embeddedWork, FD_EXEC } from "./embedded-commands.js";
import { optionValues } from "./option-values.js";
import { scriptVariables, wordValues, type ShellVariables } from "./shell-variables.js";
import { lessTrusted, minTrust, type TrustLevel } from "./trust-levels.js";

/**
 * What an `exec` call's output is worth, from what the command does. The command is parsed as a
 * shell parses it (every command in pipelines, lists, subshells, functions, loops, command
 * substitutions, `bash -c` strings and `eval`), and the output is as trusted as the least trusted
 * of its parts:
 *
 * - a program that reaches the network (curl, wget, ssh, git fetch, package managers, ...) gives
 *   `untrusted` output: the bytes come from whoever answers;
 * - a local program whose output is only what it computes from local state (ls, grep, git status,
 *   ...) gives `trusted` output, except for the files it reads, which carry their own trust (the
 *   `fileLevel` callback: `fileTrust` globs and labels of files written under taint);
 * - any other program, a command name computed at run time (`$CMD`), or a script the parser cannot
 *   read gets the level configured for unknown commands (`*`, default `untrusted`).
 *
 * Keys of `overrides` are a program (`make`) or a program and its subcommand (`git fetch`); the
 * subcommand entry wins.
 */

export interface ExecTrust {
  readonly level: TrustLevel;
  readonly reason: string;
}

export type FileLevel = (path: string) => ExecTrust | null;

/** Programs whose output is what the network sends. */
export const NETWORK_COMMANDS: readonly string[] = Object.freeze([
  "curl", "wget", "aria2c", "http", "https", "httpie", "xh", "nc", "ncat", "netcat", "socat", "telnet",
  "ssh", "scp", "sftp", "ftp", "rsync", "lynx", "w3m", "links", "elinks", "dig", "nslookup", "host",
  "whois", "ping", "traceroute", "openssl", "gh", "glab", "hub", "npm", "npx", "pnpm", "yarn", "bun",
  "deno", "pip", "pip3", "pipx", "uv", "cargo", "go", "gem", "apt", "apt-get", "yum", "dnf", "brew",
  "docker", "podman", "kubectl", "helm", "aws", "gcloud", "az", "gsutil", "rclone", "mail", "mutt",
  "fetchmail", "himalaya", "git fetch", "git pull", "git clone", "git ls-remote", "git remote",
  "git submodule", "git push", "git send-email", "git request-pull", "git archive",
]);

/** Programs whose output is computed from local state only (the files they read aside). */
export const LOCAL_COMMANDS: readonly string[] = Object.freeze([
  "ls", "pwd", "echo", "printf", "cat", "tac", "head", "tail", "less", "more", "grep", "egrep", "fgrep",
  "rg", "ag", "find", "fd", "fdfind", "tree", "wc", "sort", "uniq", "cut", "paste", "tr", "column", "nl", "fold",
  "fmt", "diff", "cmp", "comm", "stat", "file", "du", "df", "date", "cal", "whoami", "id", "groups",
  "uname", "hostname", "which", "type", "true", "false", "test", "[", "[[", "mkdir", "rmdir", "touch",
  "cp", "mv", "rm", "ln", "chmod", "chown", "chgrp", "tee", "sed", "awk", "gawk", "jq", "yq", "xxd",
  "od", "hexdump", "base64", "sha1sum", "sha256sum", "sha512sum", "md5sum", "cksum", "tar", "gzip",
  "gunzip", "zcat", "bzip2", "xz", "unzip", "zip", "realpath", "readlink", "basename", "dirname", "seq",
  "sleep", "printenv", "export", "set", "unset", "cd", "pushd", "popd", "alias", "expr", "bc", "read",
  "exit", "return", "local", "declare", "shift", "wait", "kill", "ps", "top", "free", "uptime", "lsof",
  "git status", "git diff", "git log", "git show", "git add", "git commit", "git branch", "git checkout",
  "git switch", "git restore", "git reset", "git rev-parse", "git stash", "git tag", "git init",
  "git config", "git blame", "git grep", "git ls-files", "git mv", "git rm", "git merge-base",
  "git describe", "git shortlog", "git reflog", "git merge", "git rebase", "git cherry-pick",
]);

/**
 * Local programs whose output never holds what the files their operands name say (they print a
 * count, a name, a status, or nothing): an operand known only at run time costs them nothing.
 * Any other program given such an operand may be printing any file.
 */
const NON_READERS: ReadonlySet<string> = new Set([
  "echo", "printf", "basename", "dirname", "test", "[", "[[", "true", "false", "sleep", "mkdir", "rmdir",
  "touch", "rm", "cd", "pushd", "popd", "pwd", "wc", "stat", "du", "df", "chmod", "chown", "chgrp", "cp",
  "mv", "ln", "kill", "wait", "exit", "return", "shift", "export", "local", "declare", "set", "unset",
  "alias", "seq", "expr", "realpath", "readlink", "date", "which", "type", "id", "whoami",
]);

/** Programs that run the rest of their arguments as a command. */
const WRAPPERS: ReadonlySet<string> = new Set(["sudo", "doas", "env", "nice", "nohup", "timeout", "time", "command", "exec", "xargs", "stdbuf", "ionice", "builtin", "watch", "chronic"]);
const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "busybox"]);
const INPUT_REDIRECTS: ReadonlySet<string> = new Set(["<", "<>", "<&"]);
/** `bash -c` inside `eval` inside `bash -c` ...: past this depth the script counts as unknown. */
const MAX_NESTING = 8;
const UNKNOWN_KEY = "*";

export interface ExecTrustOptions {
  /** Owner's entries (`execCommandTrust`), over the built-in lists; `*` is any other program. */
  readonly overrides: Readonly<Record<string, TrustLevel>>;
  readonly fileLevel: FileLevel;
  /**
   * The trust of everything under a path, for a program that reads a directory recursively
   * (`grep -r`, `rg`, `find`): the worst file beneath it. Without it, the path's own `fileLevel`.
   */
  readonly treeLevel?: FileLevel;
  /**
   * The trust of the files a shell glob (`docs/*.md`) names: the worst file it matches on disk.
   * Without it, globs are judged by their text alone (`fileLevel`).
   */
  readonly globLevel?: FileLevel;
  /**
   * The trust of what a patch-printing git command shows (`git diff`, `git show`, `git log -p`,
   * `git stash show`), given its subcommand and the words after it: the worst file it shows a
   * change of; `dir` is where git runs, relative to where the command starts (after a `cd`).
   * Without it, such a command is judged by its words alone.
   */
  readonly patchLevel?: (subcommand: string, args: readonly string[], dir?: string) => ExecTrust | null;
  /**
   * The trust of everything a listing that leaves out what git ignores (`git ls-files`, `fd`) can
   * name under a path: the worst file beneath it less what git ignores. Without it, `treeLevel`.
   */
  readonly listedLevel?: FileLevel;
  /**
   * The trust of what git prints of a repository's history (commit messages, branch and tag
   * names, authors), for the repository git runs in (`dir`, as for patchLevel): a history fetched
   * or cloned by a command below trusted is labelled so. Without it, history is the repository's.
   */
  readonly historyLevel?: (dir?: string) => ExecTrust | null;
}

/** The trust of a command's output (see the module comment). */
export function execOutputTrust(command: string, options: ExecTrustOptions): ExecTrust {
  const table = commandTable(options.overrides);
  // `cd notes && cat page.md` reads notes/page.md: a relative path is looked up from where the
  // command starts and from every directory it may change to (in whatever order, in subshells or
  // not: more places looked at can only find worse).
  const reading = readExec(command);
  const dirs = reading.directories;
  const within = (level: FileLevel): FileLevel => (named) => {
    const path = commandsOwnPath(named);
    if (path === null) return { level: "untrusted", reason: `${named} names a file through a process's own links, known only at run time` };
    let worst = level(path);
    if (!isAbsolute(path) && !path.startsWith("~")) for (const dir of dirs.known) worst = worseOf(worst, level(join(dir, path)));
    return worst;
  };
  const fileLevel = within(options.fileLevel);
  const treeLevel = within(options.treeLevel ?? options.fileLevel);
  const listedLevel = options.listedLevel === undefined ? treeLevel : within(options.listedLevel);
  const globLevel = options.globLevel === undefined ? () => null : within(options.globLevel);
  const patch = options.patchLevel;
  const patchLevel =
    patch === undefined
      ? () => null
      : (subcommand: string, args: readonly string[]) => dirs.known.reduce((worst, dir) => worseOf(worst, patch(subcommand, args, dir)), patch(subcommand, args));
  const history = options.historyLevel;
  const historyLevel = history === undefined ? () => null : () => dirs.known.reduce((worst, dir) => worseOf(worst, history(dir)), history());
  let found = new Classifier(table, { fileLevel, treeLevel, listedLevel, globLevel, patchLevel, historyLevel }).script(command, 0);
  if (dirs.unknown !== null) found = worseOf(found, { level: "untrusted", reason: `cd to a directory known only at run time (${JSON.stringify(dirs.unknown)})` }) ?? found;
  // git told where a repository is by its environment reads that one, not the one where it runs
  // (an assignment's name is never quoted; a word's value is as the program gets it).
  const pointer = [command, ...reading.words].map((text) => GIT_LOCATION.exec(text)?.[0]).find((name) => name !== undefined);
  if (pointer !== undefined) found = worseOf(found, { level: "untrusted", reason: `the command sets ${pointer}: git may read another repository` }) ?? found;
  return found;
}

/**
 * A path through the links `/proc` gives each process, as the command's own process sees them:
 * `/proc/self/cwd/x` is `x` where the command runs (not where the guard runs, which is what
 * resolving the link here would give), `/proc/self/root/x` is `/x`. Another process's links, a
 * file descriptor's (`/proc/self/fd/3`, `/dev/fd/3`: whatever the shell opened) and the program
 * itself (`exe`) are known only at run time: null. Any other path is returned as it is.
 */
export function commandsOwnPath(path: string): string | null {
  const tidy = path.replace(/\/(?:\.?\/)+/g, "/");
  if (/^\/dev\/fd(\/|$)/.test(tidy)) return null;
  const proc = /^\/proc\/(self|thread-self|\d+)(\/task\/\d+)?\/(cwd|root|fd|fdinfo|map_files|exe)(\/.*)?$/.exec(tidy);
  if (proc === null) return path;
  const [, whose, , link, rest = ""] = proc;
  if ((whose !== "self" && whose !== "thread-self") || (link !== "cwd" && link !== "root")) return null;
  if (link === "root") return rest === "" ? "/" : rest;
  return rest === "" || rest === "/" ? "." : rest.slice(1);
}

/** The environment that tells git where a repository is. */
const GIT_LOCATION = /\bGIT_(DIR|WORK_TREE|COMMON_DIR|OBJECT_DIRECTORY|INDEX_FILE)\b/;

/** The less trusted of two findings (the first of equals); null says nothing. */
export function worseOf(worst: ExecTrust | null, found: ExecTrust | null): ExecTrust | null {
  return found !== null && (worst === null || lessTrusted(found.level, worst.level)) ? found : worst;
}

function commandTable(overrides: Readonly<Record<string, TrustLevel>>): Map<string, TrustLevel> {
  const table = new Map<string, TrustLevel>();
  for (const name of LOCAL_COMMANDS) table.set(name, "trusted");
  for (const name of NETWORK_COMMANDS) table.set(name, "untrusted");
  table.set(UNKNOWN_KEY, "untrusted");
  for (const [name, level] of Object.entries(overrides)) table.set(name, level);
  return table;
}

/** Where the classifier asks the disk (see ExecTrustOptions), each made to follow the command's `cd`s. */
interface Lookups {
  readonly fileLevel: FileLevel;
  readonly treeLevel: FileLevel;
  readonly listedLevel: FileLevel;
  readonly globLevel: FileLevel;
  readonly patchLevel: (subcommand: string, args: readonly string[]) => ExecTrust | null;
  readonly historyLevel: () => ExecTrust | null;
}

class Classifier {
  private worst: ExecTrust = { level: "trusted", reason: "local commands only" };
  /** The variables of the script being read (a nested `bash -c` script has its own). */
  private variables: ShellVariables = new Map();
  /** The current command's words whose text is not what the program gets, and what it gets. */
  private readonly values = new Map<string, readonly string[] | null>();
  /** `xargs` commands whose input is the names a judged listing (`find`, `grep -rl`, `git ls-files`) printed. */
  private readonly fedByListing = new Set<unknown>();
  /** The program whose arguments are being looked up. */
  private reader = "";

  constructor(
    private readonly table: ReadonlyMap<string, TrustLevel>,
    private readonly look: Lookups,
  ) {}

  script(source: string, depth: number): ExecTrust {
    if (depth > MAX_NESTING) return this.unknown("nested more deeply than is checked");
    let ast: unknown;
    try {
      ast = parseShell(source);
    } catch {
      return this.unknown("the command could not be parsed");
    }
    const outer = this.variables;
    this.variables = scriptVariables(ast);
    this.walk(ast, depth);
    this.variables = outer;
    return this.worst;
  }

  private note(level: TrustLevel, reason: string): void {
    if (minTrust(level, this.worst.level) !== this.worst.level) this.worst = { level, reason };
  }

  private unknown(why: string): ExecTrust {
    this.note(this.table.get(UNKNOWN_KEY) ?? "untrusted", why);
    return this.worst;
  }

  /** Every node: commands are classified, words checked for substitutions, input files looked up. */
  private walk(ast: unknown, depth: number): void {
    visitNodes(ast, (node) => {
      switch (node["type"]) {
        case "Command":
          this.command(node as unknown as BashCommand, depth);
          break;
        case "Pipeline":
          this.pipeline(node["commands"]);
          break;
        case "Redirect":
          this.redirect(node as unknown as BashRedirect);
          break;
        case "Word":
        case "AssignmentWord":
          this.word(node as unknown as BashWord);
          break;
        case "CommandExpansion":
          if (node["commandAST"] === undefined) this.unknown("a command substitution the parser did not read");
          break;
        case "ArithmeticExpansion":
          if (typeof node["expression"] === "string" && /\$\(|`/.test(node["expression"])) this.unknown("a command inside arithmetic");
          break;
      }
    });
  }

  /**
   * A word whose text holds a substitution the parser did not expand is not understood. A word with
   * a glob (`docs/*.md`, also in a `for` list) is what it matches on disk: each file it names is
   * looked up (a quoted pattern that looks like one costs a look and names nothing).
   */
  private word(word: BashWord): void {
    if (word.type === "Word" && /[*?[]/.test(word.text)) {
      const level = this.look.globLevel(word.text);
      if (level !== null) this.note(level.level, level.reason);
    }
    if (!/\$\(|`|<\(|>\(/.test(word.text)) return;
    const expanded = (word.expansion ?? []).some((e) => e.type === "CommandExpansion" || e.type === "ArithmeticExpansion");
    if (!expanded) this.unknown(`a substitution in ${JSON.stringify(word.text)} that was not read`);
  }

  private redirect(redirect: BashRedirect): void {
    if (!INPUT_REDIRECTS.has(redirect.op.text)) return;
    const values = wordValues(redirect.file, this.variables);
    if (values === null) this.note("untrusted", `input read from a file known only at run time (${JSON.stringify(redirect.file.text)})`);
    else for (const path of values) this.lookUp(path);
  }

  /** What the current command's word becomes: its text, the values it can take, or null when known only at run time. */
  private valuesOf(word: string): readonly string[] | null {
    return this.values.has(word) ? (this.values.get(word) ?? null) : [word];
  }

  /** An operand of the current program: the file (or the files a glob matches) it can name. */
  private file(word: string): void {
    const values = this.valuesOf(word);
    if (values === null) {
      // `cat "$f"` with f read at run time, `cat $(cat list.txt)`: which file is not known here.
      if (!NON_READERS.has(this.reader)) this.note("untrusted", `${this.reader} reads a file known only at run time (${JSON.stringify(word)})`);
      return;
    }
    for (const path of values) this.lookUp(path, path !== word);
  }

  private lookUp(path: string, resolved = true): void {
    const level = this.look.fileLevel(path);
    if (level !== null) this.note(level.level, level.reason);
    // A glob a variable held (`for f in docs/*.md`) names what it matches (a glob in the
    // command's own words was looked up as a word).
    if (resolved && /[*?[]/.test(path)) {
      const matched = this.look.globLevel(path);
      if (matched !== null) this.note(matched.level, matched.reason);
    }
  }

  /** Everything a listing names beneath its roots, less what git ignores when the listing leaves that out. */
  private listing(listing: Listing): void {
    for (const root of listing.roots) {
      const level = listing.ignores ? this.look.listedLevel(root) : this.look.treeLevel(root);
      if (level !== null) this.note(level.level, level.reason);
    }
  }

  private tree(word: string): void {
    const values = this.valuesOf(word);
    if (values === null) {
      // `grep -r x "$PWD"`, `rg x $(pwd)`, `ls -R ~+`: which directory is known only at run time.
      this.note("untrusted", `a recursive read of a directory computed at run time (${JSON.stringify(word)})`);
      return;
    }
    for (const path of values) {
      const level = this.look.treeLevel(path);
      if (level !== null) this.note(level.level, level.reason);
    }
  }

  /**
   * `find … | xargs cat`: the names xargs reads are those a recursive listing printed, and the
   * listing was judged by the worst file beneath it. `git ls-files | xargs grep x` and `fd … |
   * xargs cat`: the names are those of files beneath the listing's roots, judged here as the
   * listing reaches them (less what git ignores); a root known only at run time leaves xargs's
   * names unknown.
   */
  private pipeline(commands: unknown): void {
    if (!Array.isArray(commands)) return;
    for (let i = 1; i < commands.length; i++) {
      const [before, after] = [commands[i - 1] as BashCommand, commands[i] as BashCommand];
      if (after?.type !== "Command" || after.name?.text !== "xargs" || before?.type !== "Command" || before.name === undefined) continue;
      const words = (before.suffix ?? []).filter((w): w is BashWord => w.type !== "Redirect");
      const args = words.map((w) => w.text);
      const program = before.name.text.slice(before.name.text.lastIndexOf("/") + 1);
      if (recursiveOperands(program, args).length > 0) {
        this.fedByListing.add(after);
        continue;
      }
      const listing = listingRoots(program, args);
      if (listing === null || words.some((w) => (w.expansion ?? []).length > 0)) continue;
      this.listing(listing);
      this.fedByListing.add(after);
    }
  }

  private command(command: BashCommand, depth: number): void {
    const name = command.name;
    if (name === undefined) return; // assignments and redirects only; walked by the caller
    if ((name.expansion ?? []).length > 0) {
      this.unknown(`the program is computed at run time (${JSON.stringify(name.text)})`);
      return;
    }
    const suffix = (command.suffix ?? []).filter((w): w is BashWord => w.type !== "Redirect");
    this.values.clear();
    const args: string[] = [];
    for (const w of suffix) {
      args.push(w.text);
      if (/^~[+-]/.test(w.text)) this.values.set(w.text, null);
      else if ((w.expansion ?? []).length > 0) this.values.set(w.text, wordValues(w, this.variables));
      else {
        // `cat notes/{page,copy}.md` is two operands (kept beside the word as written: see braceExpansions).
        const expanded = braceExpansions(w.text);
        if (expanded === null) this.values.set(w.text, null);
        else args.push(...expanded);
      }
    }
    this.program([name.text, ...args], depth, this.fedByListing.has(command));
  }

  /**
   * `argv` with its program first; wrappers and shells are looked through. `namesListed`: an
   * `xargs` fed by a listing program, whose extra operands the listing already judged.
   */
  private program(argv: readonly string[], depth: number, namesListed = false): void {
    const [first, ...args] = argv;
    if (first === undefined) return;
    const program = first.slice(first.lastIndexOf("/") + 1);
    if (WRAPPERS.has(program)) {
      // Options, assignments and durations go; the first other word is the program it runs (an
      // option's value read as a program is unknown, which only makes the output less trusted).
      const at = args.findIndex((a) => !(a.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(a) || /^\d+(\.\d+)?[smhd]?$/.test(a)));
      const runs = at === -1 ? (program === "xargs" ? ["echo"] : []) : args.slice(at);
      if (runs.length > 0) this.program(runs, depth);
      // xargs hands the program operands read from its input at run time (`cat list.txt | xargs
      // cat`, `xargs -a list.txt cat`); only a listing's names were judged where they were listed.
      const reader = (runs[0] ?? "").slice((runs[0] ?? "").lastIndexOf("/") + 1);
      if (program === "xargs" && !namesListed && !NON_READERS.has(reader)) this.note("untrusted", `${reader} reads files xargs names at run time`);
      return;
    }
    if (SHELLS.has(program)) {
      const c = args.indexOf("-c");
      const script = c === -1 ? undefined : args[c + 1];
      if (script === undefined) this.unknown(`${program} runs a script file or its input`);
      else this.script(script, depth + 1);
      return;
    }
    if (program === "eval") {
      this.script(args.join(" "), depth + 1);
      return;
    }
    const sub = args.find((a) => !a.startsWith("-"));
    const level = (sub !== undefined ? this.table.get(`${program} ${sub}`) : undefined) ?? this.table.get(program);
    if (level === undefined) {
      this.unknown(`${program} is not a command known to stay local`);
      return;
    }
    const key = sub !== undefined && this.table.has(`${program} ${sub}`) ? `${program} ${sub}` : program;
    this.note(level, level === "trusted" ? `${key} is local` : `${key} output is ${level}`);
    this.reader = program;
    // What a local program prints may be a file's content: each argument that can name a file does.
    for (const arg of args) {
      if (arg.startsWith("-")) {
        const eq = arg.indexOf("=");
        if (eq === -1) continue;
        // `--file="$f"`: the value is the option's part of what the word becomes.
        const values = this.valuesOf(arg);
        if (values === null) this.file(arg);
        else for (const value of values) this.lookUp(value.slice(value.indexOf("=") + 1), value !== arg);
        continue;
      }
      this.file(arg);
      // `git show HEAD:third_party/x/README.md`: a file as a revision holds it.
      const colon = arg.indexOf(":");
      if (colon > 0) this.file(arg.slice(colon + 1));
    }
    // A program that reads whole directories prints what any file beneath them says (or is named).
    for (const path of recursiveOperands(program, args)) this.tree(path);
    // What a local program runs or reads beyond its words (`find … -exec curl …`, `fd -x cat`,
    // `tar --to-command=…`, `sed '1r notes.md'`, awk's `system()`) is part of the command; what
    // `fd -x` runs is given the files its search reaches.
    const embedded = embeddedWork(program, args);
    const searched = embedded.commands.length > 0 ? listingRoots(program, args) : null;
    if (searched !== null) this.listing(searched);
    for (const argv of embedded.commands) this.program(argv, depth + 1);
    for (const script of embedded.scripts) this.script(script, depth + 1);
    for (const file of embedded.files) this.lookUp(file);
    if (embedded.unknown !== null) this.note("untrusted", embedded.unknown);
    // Every git command may print history (a commit's subject, a branch name): whoever wrote it.
    if (program === "git") {
      const level = this.look.historyLevel();
      if (level !== null) this.note(level.level, level.reason);
      // A repository named by an option is not the one where git runs (`-C dir` is a subcommand
      // no table knows, so already untrusted).
      const pointed = (sub === undefined ? args : args.slice(0, args.indexOf(sub))).find((a) => /^--(git-dir|work-tree)/.test(a));
      if (pointed !== undefined) this.note("untrusted", `git reads the repository ${JSON.stringify(pointed)} names`);
    }
    // A patch is the changed files' words: `git diff` of a vendored update, `git show <commit>`.
    const afterSub = sub === undefined ? [] : args.slice(args.indexOf(sub) + 1);
    if (program === "git" && sub !== undefined && printsPatches(sub, afterSub)) {
      const level = this.look.patchLevel(sub, afterSub);
      if (level !== null) this.note(level.level, level.reason);
    }
  }
}

/** A listing of the files beneath `roots`, leaving out what git ignores when `ignores`. */
interface Listing {
  readonly roots: readonly string[];
  readonly ignores: boolean;
}

/**
 * What a listing that leaves out what git ignores can name: `git ls-files` (its pathspecs and the
 * current directory; `--ignored` lists what git ignores, so then it does not leave that out) and
 * `fd` (its search paths and the current directory; `-I`, `-u`, `--no-ignore` list ignored files).
 * Generous: every word that is not an option is a root. Null for any other program, and for a
 * pathspec with magic (`:/` is the repository's top, which these words do not say).
 */
export function listingRoots(program: string, args: readonly string[]): Listing | null {
  const cluster = (a: string, letters: RegExp) => /^-[^-]/.test(a) && letters.test(a.slice(1));
  if (program === "git") {
    if (args[0] !== "ls-files") return null;
    const rest = args.slice(1);
    if (rest.some((a) => a.startsWith(":"))) return null;
    return { roots: [".", ...rest.filter((a) => !a.startsWith("-"))], ignores: !rest.some((a) => a === "--ignored" || cluster(a, /i/)) };
  }
  if (program !== "fd" && program !== "fdfind") return null;
  const exec = args.findIndex((a) => FD_EXEC.test(a));
  const own = exec === -1 ? args : args.slice(0, exec);
  const attached = own.flatMap((a) => (/^--(search-path|base-directory)=/.test(a) ? [a.slice(a.indexOf("=") + 1)] : []));
  return {
    roots: [".", ...own.filter((a) => !a.startsWith("-")), ...attached],
    ignores: !own.some((a) => a === "--no-ignore" || a === "--unrestricted" || a === "--no-ignore-vcs" || cluster(a, /[Iu]/)),
  };
}

/** Options of `git log` that print each commit's patch. */
const LOG_PATCH_OPTIONS = /^(-p|-u|--patch|--patch-with-stat|--patch-with-raw|--cc|-L.*|--word-diff.*|--color-words.*)$/;

/**
 * The git subcommands that print the changes of files: `diff`, `show`, `stash show`, and `log` or
 * `whatchanged` with a patch option.
 */
function printsPatches(subcommand: string, rest: readonly string[]): boolean {
  if (subcommand === "diff" || subcommand === "show") return true;
  if (subcommand === "stash") return rest[0] === "show";
  if (subcommand === "log" || subcommand === "whatchanged") return rest.some((a) => LOG_PATCH_OPTIONS.test(a));
  return false;
}

/**
 * The short options of each search program whose value is the next word when not attached (`-A 2`,
 * `-g '*.md'`, `-t md`): read as the pattern, such a value would make the real pattern a path, and
 * the search of `.` would go unjudged. The letters differ by program (`-r` is grep's recursion and
 * rg's replacement).
 */
const SHORT_VALUE_OPTIONS: Readonly<Record<string, string>> = { grep: "ABCDdefm", rg: "ABCdEefgjMmrtT", ag: "ABCGmp", git: "ABCefm" };
/** Long options with a value as the next word (grep, rg, ag and git grep; `--name=value` carries its own). */
const LONG_VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "--after-context", "--before-context", "--context", "--regexp", "--file", "--max-count", "--include", "--exclude",
  "--exclude-dir", "--exclude-from", "--label", "--binary-files", "--devices", "--directories", "--group-separator",
  "--glob", "--iglob", "--type", "--type-not", "--type-add", "--type-clear", "--encoding", "--threads", "--max-columns",
  "--max-depth", "--depth", "--max-filesize", "--replace", "--sort", "--sortr", "--colors", "--context-separator",
  "--field-context-separator", "--field-match-separator", "--path-separator", "--pre", "--pre-glob", "--ignore-file",
  "--engine", "--dfa-size-limit", "--regex-size-limit", "--hyperlink-format", "--hostname-bin", "--ignore", "--ignore-dir",
  "--file-search-regex", "--path-to-ignore", "--open-files-in-pager",
]);

/**
 * The paths a search reads: the words after its pattern (every word when `-e`/`-f`/`--regexp`/
 * `--file` gives the pattern, or `--files` asks for none), option values left out; `.` when there
 * are none.
 */
function searchPaths(family: string, args: readonly string[]): string[] {
  const shortValues = SHORT_VALUE_OPTIONS[family] ?? "";
  const words: string[] = [];
  let given = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") {
      words.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const name = a.includes("=") ? a.slice(0, a.indexOf("=")) : a;
      if (name === "--regexp" || name === "--file" || name === "--files") given = true;
      if (!a.includes("=") && LONG_VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      // A cluster: `-rn`, `-A2`, `-nA 2`; the first letter that takes a value takes the rest, or the next word.
      for (let j = 1; j < a.length; j++) {
        const letter = a[j] as string;
        if (!shortValues.includes(letter)) continue;
        if (letter === "e" || letter === "f") given = true;
        if (j === a.length - 1) i++;
        break;
      }
      continue;
    }
    if (a !== "") words.push(a);
  }
  const paths = given ? words : words.slice(1);
  return paths.length === 0 ? ["."] : paths;
}

/**
 * The directories a local program reads recursively (its output can be any file beneath them, or
 * their names): `grep -r`/`-R`, `rg`, `ag`, `git grep`, `find`, `tree`, `ls -R`, `diff -r`; and
 * those it walks printing every name beneath them: `du` (not `-s`), `cp`/`rm`/`chmod`/`chown`/
 * `chgrp` recursive and verbose, `zip -r` (not `-q`), `tar` creating verbosely. A file's name is
 * text its author chose.
 * Generous: a word that is an option's value or a pattern names nothing on disk, which costs a
 * look; a directory missed is content read unjudged.
 */
export function recursiveOperands(program: string, args: readonly string[]): string[] {
  const short = (letters: RegExp) => args.some((a) => /^-[^-]/.test(a) && letters.test(a.slice(1)));
  // The words that are not options (option values among them: generous, as above).
  const words = args.filter((a) => !a.startsWith("-"));
  switch (program) {
    case "grep":
    case "egrep":
    case "fgrep":
      if (!(short(/[rR]/) || args.some((a) => a === "--recursive" || a === "--dereference-recursive" || a === "--directories=recurse" || a === "recurse"))) return [];
      return searchPaths("grep", args);
    case "rg":
    case "ag":
      return searchPaths(program, args);
    case "git": {
      const at = args.findIndex((a) => !a.startsWith("-"));
      return at !== -1 && args[at] === "grep" ? searchPaths("git", args.slice(at + 1)) : [];
    }
    case "find": {
      const end = args.findIndex((a) => a.startsWith("-") || a === "(" || a === "!" || a === ")");
      const starts = end === -1 ? args : args.slice(0, end);
      return starts.length === 0 ? ["."] : [...starts];
    }
    case "tree":
      return words.length === 0 ? ["."] : words;
    case "ls":
    case "diff":
      if (!(short(program === "ls" ? /R/ : /[rR]/) || args.includes("--recursive"))) return [];
      return program === "ls" && words.length === 0 ? ["."] : words;
    case "du": {
      if (short(/s/) || args.includes("--summarize")) return [];
      const paths = operandsPast(args, "dBtX", DU_VALUE_OPTIONS);
      return paths.length === 0 ? ["."] : paths;
    }
    case "cp":
    case "rm":
    case "chmod":
    case "chown":
    case "chgrp": {
      const recursive = short(/[rR]/) || args.includes("--recursive");
      const verbose = short(program.startsWith("ch") ? /[vc]/ : /v/) || args.includes("--verbose") || args.includes("--changes");
      return recursive && verbose ? words : [];
    }
    case "zip":
      return short(/r/) && !short(/q/) && !args.includes("--quiet") ? words : [];
    case "tar": {
      // A first word without a dash is a cluster of letters (`tar cvf out.tar dir`).
      const first = args[0]?.startsWith("-") === false ? args[0] : "";
      const creating = short(/c/) || first.includes("c") || args.includes("--create");
      const verbose = short(/v/) || first.includes("v") || args.includes("--verbose");
      return creating && verbose ? words : [];
    }
    default:
      return [];
  }
}

const DU_VALUE_OPTIONS: ReadonlySet<string> = new Set(["--max-depth", "--block-size", "--threshold", "--exclude", "--exclude-from", "--time-style", "--files0-from"]);

/** The words that are not options nor their values (`shortValues`: the letters that take one, attached or the next word). */
function operandsPast(args: readonly string[], shortValues: string, longValues: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") return [...out, ...args.slice(i + 1)];
    if (a.startsWith("--")) {
      if (!a.includes("=") && longValues.has(a)) i++;
    } else if (a.startsWith("-") && a.length > 1) {
      const at = [...a.slice(1)].findIndex((l) => shortValues.includes(l));
      if (at === a.length - 2) i++;
    } else out.push(a);
  }
  return out;
}

const OUTPUT_REDIRECTS: ReadonlySet<string> = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
/** Programs that copy their sources to a destination (the last argument, or `-t <dir>`). */
const COPIERS: ReadonlySet<string> = new Set(["cp", "mv", "install", "ln", "rsync", "scp"]);

/**
 * Files a command writes that the guard can see: output redirections, `tee`'s arguments, the
 * output file of `curl -o`/`-O` and `wget` (`-O`, else the URL's last path segment), the
 * destination of `cp`/`mv`/`install`/`ln`/`rsync`/`scp` (and, for a destination directory, each
 * source's name in it), `dd of=`; inside `bash -c` strings, `eval` and wrappers (`sudo`, `env`,
 * ...) too. A command that cannot be parsed names none (its output is untrusted anyway). A program
 * writing files by names it chooses (an archive's members, `git clone`'s tree, a script) names
 * none here: the guard finds those by what changed on disk while the command ran.
 */
export function execWrittenFiles(command: string): string[] {
  return readExec(command).files;
}

/** What one reading of a command's words tells about where it goes and what it leaves on disk. */
export interface ExecReading {
  /** The files it writes by name (execWrittenFiles). */
  readonly files: string[];
  /**
   * Every word it gives its programs (inside `bash -c` strings, `eval` and wrappers too): where a
   * program that writes files by names it chooses may have been told to put them (`git clone
   * <url> ~/src/x`, `tar -C out`, `python3 gen.py build/`).
   */
  readonly words: string[];
  /** Where its `cd`s may take it (readDirectories). */
  readonly directories: ExecDirectories;
  /**
   * Whether it may write a file by a name its words do not give: a program not known to write
   * only what its words or redirections name (`git clone`, `tar -x`, `python3 fetch.py`, a program
   * computed at run time, a script that cannot be parsed).
   */
  readonly mayWriteUnnamed: boolean;
}

/** Reads a command once for its writes, its words, its `cd`s (see ExecReading). */
export function readExec(command: string): ExecReading {
  const found: WriteScan = { files: new Set(), words: new Set(), cd: [], unnamedWrites: false };
  collectWrites(command, found, 0);
  // `> /proc/self/cwd/x` writes `x`; through a descriptor's link, which file cannot be told.
  const files: string[] = [];
  for (const file of found.files) {
    const path = commandsOwnPath(file);
    if (path === null) found.unnamedWrites = true;
    else files.push(path);
  }
  return { files: [...new Set(files)], words: [...found.words], directories: readDirectories(found.cd), mayWriteUnnamed: found.unnamedWrites };
}

interface WriteScan {
  readonly files: Set<string>;
  readonly words: Set<string>;
  /** The directories `cd`/`pushd` go to, in order, as written (`~` for a bare `cd`). */
  readonly cd: string[];
  /** Whether a program may write a file by a name its words do not give (ExecReading.mayWriteUnnamed). */
  unnamedWrites: boolean;
}

/**
 * Programs that write no file but what a redirection or their words name (which execWrittenFiles
 * follows), and the wrappers that run one: a command of these alone leaves nothing else on disk.
 * Not here: what writes by names it chooses or by an option (`sort -o`, `sed -i`, `find -fprint`,
 * `nohup`'s nohup.out, `tar`, `git checkout`), and any program not known.
 */
const WRITE_NAMED_ONLY: ReadonlySet<string> = new Set([
  "ls", "pwd", "echo", "printf", "cat", "tac", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag",
  "wc", "stat", "file", "du", "df", "date", "cal", "whoami", "id", "groups", "uname", "hostname", "which", "type",
  "true", "false", "test", "[", "[[", "cd", "pushd", "popd", "sleep", "printenv", "export", "set", "unset", "alias",
  "local", "declare", "shift", "read", "exit", "return", "wait", "basename", "dirname", "realpath", "readlink", "seq",
  "cut", "tr", "nl", "fold", "column", "cmp", "comm", "diff", "jq", "base64", "od", "hexdump", "sha1sum",
  "sha256sum", "sha512sum", "md5sum", "cksum", "tee", "touch", "mkdir",
  "env", "nice", "timeout", "command", "exec", "stdbuf", "ionice", "builtin", "xargs", "watch", "chronic", "sudo", "doas",
]);
/** git subcommands that print and write nothing, unless told to write their output (`--output`). */
const GIT_WRITE_NAMED_ONLY: ReadonlySet<string> = new Set(["status", "diff", "log", "show", "blame", "grep", "ls-files", "rev-parse", "describe", "shortlog"]);

/** Where a command may go: every directory its `cd`s can reach, and the first one known only at run time. */
export interface ExecDirectories {
  readonly known: readonly string[];
  readonly unknown: string | null;
}

/** How many directories a command's `cd`s are followed to. */
const MAX_DIRECTORIES = 16;

/**
 * The directories a command may change to (`cd`, `pushd`, its targets in order), relative to
 * where it starts: each target, and each relative target joined to every directory before it
 * (`cd a && cd b` is in `a/b`, or in `b` if `cd a` failed). A target known only at run time (`cd
 * "$d"`, `cd -`) is reported as unknown; so is one past MAX_DIRECTORIES.
 */
function readDirectories(targets: readonly string[]): ExecDirectories {
  const known: string[] = [];
  for (const target of targets) {
    if (target === "-" || /[$`]/.test(target)) return { known, unknown: target };
    const reached = isAbsolute(target) || target.startsWith("~") ? [target] : [target, ...known.map((dir) => join(dir, target))];
    for (const dir of reached) if (!known.includes(dir)) known.push(dir);
    if (known.length > MAX_DIRECTORIES) return { known: known.slice(0, MAX_DIRECTORIES), unknown: target };
  }
  return { known, unknown: null };
}

function collectWrites(script: string, found: WriteScan, depth: number): void {
  let ast: unknown;
  try {
    if (depth > MAX_NESTING) throw new Error("nested too deeply");
    ast = parseShell(script);
  } catch {
    found.unnamedWrites = true;
    return;
  }
  // A name a variable holds (`f=notes.md; curl … > "$f"`) is each value the script gives it; one
  // known only at run time names no file the guard can see.
  const variables = scriptVariables(ast);
  visitNodes(ast, (node) => {
    if (node["type"] === "Redirect") {
      const redirect = node as unknown as BashRedirect;
      if (OUTPUT_REDIRECTS.has(redirect.op.text)) for (const file of wordValues(redirect.file, variables) ?? []) found.files.add(file);
    }
    if (node["type"] === "Command") {
      const c = node as unknown as BashCommand;
      if (c.name !== undefined) {
        const words = (c.suffix ?? []).filter((w): w is BashWord => w.type !== "Redirect");
        for (const argv of argvValues(words, variables, found)) {
          for (const word of argv) found.words.add(word);
          programWrites([c.name.text, ...argv], found, depth);
        }
      }
    }
  });
}

/**
 * The argument lists a command's words can make (a word whose value is known only at run time
 * kept as written), at most 64 of them.
 */
function argvValues(words: readonly BashWord[], variables: ShellVariables, found: WriteScan): string[][] {
  let lists: string[][] = [[]];
  for (const [at, word] of words.entries()) {
    if ((word.expansion ?? []).length === 0) {
      // Brace expansion makes more words, not other values of this one (kept as written beside them).
      const expanded = braceExpansions(word.text);
      // Past the bound, which names the program writes cannot be told: it may write any.
      if (expanded === null) found.unnamedWrites = true;
      lists = lists.map((list) => [...list, word.text, ...(expanded ?? [])]);
      continue;
    }
    const values = wordValues(word, variables) ?? [word.text];
    const next = lists.flatMap((list) => values.map((value) => [...list, value]));
    if (next.length > 64) return lists.map((list) => [...list, ...words.slice(at).map((w) => w.text)]);
    lists = next;
  }
  return lists;
}

/** The files one program invocation writes by the names on its command line (see execWrittenFiles). */
function programWrites(argv: readonly string[], found: WriteScan, depth: number): void {
  const { files } = found;
  const [first, ...args] = argv;
  if (first === undefined) return;
  const program = first.slice(first.lastIndexOf("/") + 1);
  if (!writesNamedOnly(program, args)) found.unnamedWrites = true;
  if (WRAPPERS.has(program)) {
    const at = args.findIndex((a) => !(a.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(a) || /^\d+(\.\d+)?[smhd]?$/.test(a)));
    if (at !== -1) programWrites(args.slice(at), found, depth);
    return;
  }
  if (SHELLS.has(program)) {
    const script = args[args.indexOf("-c") + 1];
    if (args.includes("-c") && script !== undefined) collectWrites(script, found, depth + 1);
    return;
  }
  if (program === "eval") {
    collectWrites(args.join(" "), found, depth + 1);
    return;
  }
  if (program === "cd" || program === "pushd") {
    // `cd -P dir`, `cd -- -dir`; `cd` alone goes home; `pushd` alone swaps with a directory
    // already counted.
    const ended = args.indexOf("--");
    const target = ended === -1 ? args.find((a) => !/^-[LPe@]+$/.test(a)) : args[ended + 1];
    if (target !== undefined || program === "cd") found.cd.push(target ?? "~");
  } else if (program === "tee") {
    for (const a of args) if (!a.startsWith("-")) files.add(a);
  } else if (program === "curl") {
    curlWrites(args, files);
  } else if (program === "wget") {
    wgetWrites(args, files);
  } else if (COPIERS.has(program)) {
    copyWrites(args, files);
  } else if (program === "dd") {
    for (const a of args) if (a.startsWith("of=")) files.add(a.slice(3));
  }
  const embedded = embeddedWork(program, args);
  for (const executed of embedded.commands) programWrites(executed, found, depth + 1);
  for (const script of embedded.scripts) collectWrites(script, found, depth + 1);
}

function writesNamedOnly(program: string, args: readonly string[]): boolean {
  if (program === "eval" || (SHELLS.has(program) && args.includes("-c"))) return true; // the script is read in turn
  if (program !== "git") return WRITE_NAMED_ONLY.has(program);
  const sub = args.find((a) => !a.startsWith("-"));
  return sub !== undefined && GIT_WRITE_NAMED_ONLY.has(sub) && !args.some((a) => a.startsWith("--output"));
}

/** The files an option names (`-o out.md`): its values, less "-" (standard output) and an empty word. */
function optionFiles(args: readonly string[], short: string, long: readonly string[]): string[] {
  return optionValues(args, short, long).filter((v) => v !== "" && v !== "-");
}

function hasFlag(args: readonly string[], short: string, long: string): boolean {
  return args.some((a) => a === long || (/^-[A-Za-z]+$/.test(a) && a.includes(short)));
}

function urls(args: readonly string[]): string[] {
  return args.filter((a) => /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(a));
}

/** The last path segment of a URL, as `curl -O` and `wget` name the file they save. */
function urlFileName(url: string): string {
  const path = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/, "").split(/[?#]/)[0] ?? "";
  return path.slice(path.lastIndexOf("/") + 1);
}

function curlWrites(args: readonly string[], files: Set<string>): void {
  for (const v of optionFiles(args, "o", ["--output"])) files.add(v);
  if (hasFlag(args, "O", "--remote-name") || args.includes("--remote-name-all")) {
    const dir = optionFiles(args, "", ["--output-dir"])[0];
    for (const url of urls(args)) {
      const name = urlFileName(url);
      if (name !== "") files.add(dir === undefined ? name : `${dir}/${name}`);
    }
  }
}

function wgetWrites(args: readonly string[], files: Set<string>): void {
  for (const v of optionFiles(args, "O", ["--output-document"])) files.add(v);
  // With -O (to a file, or `-` for its standard output) wget names no file by the URL.
  if (args.some((a) => a.startsWith("--output-document") || (/^-[^-]/.test(a) && a.includes("O", 1)))) return;
  const dir = optionFiles(args, "P", ["--directory-prefix"])[0];
  for (const url of urls(args)) {
    const name = urlFileName(url) || "index.html";
    files.add(dir === undefined ? name : `${dir}/${name}`);
  }
}

function copyWrites(args: readonly string[], files: Set<string>): void {
  const target = optionFiles(args, "t", ["--target-directory"])[0];
  const operands = args.filter((a, i) => !a.startsWith("-") && !(i > 0 && /^(-t|--target-directory)$/.test(args[i - 1] ?? "")));
  const dest = target ?? (operands.length >= 2 ? operands[operands.length - 1] : undefined);
  if (dest === undefined) return;
  const sources = target === undefined ? operands.slice(0, -1) : operands;
  files.add(dest);
  for (const source of sources) {
    const name = source.replace(/\/+$/, "");
    const base = name.slice(name.lastIndexOf("/") + 1).replace(/^.*:/, "");
    if (base !== "" && base !== "." && base !== "..") files.add(`${dest.replace(/\/+$/, "")}/${base}`);
  }
}
