import { type Dirent, type Stats, existsSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import picomatch from "picomatch";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ResolvedConfig } from "./core/config.js";
import { MAX_RUNNING_PROCESSES, OPEN, runningText, type ChangeWindow } from "./core/change-windows.js";
import { CODE_MODE_SCRIPT_TRUST, codeModeScript } from "./core/code-mode-script.js";
import { execOutputTrust, readExec, worseOf, type ExecReading, type ExecTrust } from "./core/exec-trust.js";
import type { FileLabel } from "./core/file-labels.js";
import { filePathParam } from "./core/file-path-param.js";
import { isRecord } from "./core/json-record.js";
import { FileTrustRules, type HostFiles } from "./core/file-trust.js";
import type { HostCatalogue } from "./core/host-catalogue.js";
import { hostPathReadings } from "./core/host-paths.js";
import { lessTrusted, minTrust, type TrustLevel } from "./core/trust-levels.js";
import { writeTargets } from "./core/write-targets.js";
import { changedFiles } from "./guard-git-changes.js";
import { gitIgnored, NOTHING_SKIPPED, type SkippedPath } from "./guard-git-ignored.js";
import { extractPatchTargets } from "./sig/patch-targets.js";
import { isDirectory, realPathOrNull } from "./state/file-kind.js";
import type { FileLabelStore } from "./state/file-label-store.js";
import { processesLeftRunning } from "./state/processes-left-running.js";

/**
 * The guard's reading of what a call's output is worth from what the call did (docs/engine.md
 * "Output trust from what the call did"): an `exec` from its parsed command, a file read from the
 * file's `fileTrust` rule and label, `process` from the worst `exec` of its session; and the labels
 * of files written while a turn is tainted. The rules are in core/; this joins them to the disk
 * (the workspace, symlinked directories, the label store).
 */
export class CallOutputTrust {
  private readonly fileTrust: FileTrustRules;

  constructor(
    private readonly options: {
      readonly config: Pick<ResolvedConfig, "fileTrust" | "execOutputTrust" | "execCommandTrust">;
      readonly workspaceDir: string;
      readonly home: string;
      readonly fileLabels: FileLabelStore;
      readonly catalogue: HostCatalogue;
      /** What the host keeps on disk (its installation, its configured log files): see FileTrustRules. */
      readonly hostFiles?: HostFiles;
    },
  ) {
    this.fileTrust = new FileTrustRules(options.config.fileTrust, options.hostFiles);
  }

  /**
   * What a session this process has not seen before knows of its commands: whatever ran in the
   * background under another process (before a restart, in an earlier hook) is unknown, so its
   * output counts as untrusted, and what changed since the latest window of the session began is
   * looked for at the next `process` (none on record: only from then on).
   */
  resume(session: WritingSession & { execLevel: TrustLevel }): void {
    session.execLevel = "untrusted";
    session.backgroundSince = this.options.fileLabels.lastWindowSince(session.sessionId) ?? null;
  }

  /** Labels another process changed since (another front end's write, the owner's `provenant labels clear`), and windows whose processes have ended. */
  refreshLabels(): void {
    this.options.fileLabels.refresh();
    // Windows whose processes have all ended close: a window only ever covers more while open,
    // so looking once a turn costs nothing but precision within it.
    this.options.fileLabels.closeEndedWindows();
  }

  /**
   * The trust of this call's output, or null when what it did says nothing beyond the catalogue.
   * `session.execLevel` keeps the worst `exec` of the session, for `process`.
   */
  judge(tool: string, params: Readonly<Record<string, unknown>>, session: { execLevel: TrustLevel }, ranOn?: string): ExecTrust | null {
    const byCommand = this.options.config.execOutputTrust === "by-command";
    const { execTools, backgroundOutputTools, fileReadTools, searchTools } = this.options.catalogue;
    if (execTools.has(tool) && byCommand) {
      const command = params["command"];
      // Relative paths in the command start from `workdir` when the call names one, and the
      // directory itself is read like a file (a command run inside an inbox reads the inbox).
      const workdir = workdirOf(params);
      const base = this.baseDir(workdir);
      // A call with a `code` is a Code Mode script, whatever a `command` beside it says.
      let trust: ExecTrust =
        codeModeScript(params) !== null
          ? CODE_MODE_SCRIPT_TRUST
          : typeof command === "string"
            ? execOutputTrust(command, {
                overrides: this.options.config.execCommandTrust,
                fileLevel: (path) => this.fileLevel(path, base),
                treeLevel: (path) => this.treeLevel(path, base),
                globLevel: (pattern) => this.globLevel(pattern, base),
                patchLevel: (subcommand, args, dir) => this.patchLevel(subcommand, args, dir === undefined ? base : (this.absoluteReadings(dir, base)[0] ?? base)),
                historyLevel: (dir) => this.historyLevel(dir === undefined ? base : (this.absoluteReadings(dir, base)[0] ?? base)),
                listedLevel: (path) => this.unignoredTreeLevel(this.absoluteReadings(path, base)[0] ?? base),
              })
            : { level: "untrusted", reason: "exec with no command string" };
      const inDir = workdir === null ? null : this.fileLevel(workdir);
      if (inDir !== null && lessTrusted(inDir.level, trust.level)) trust = inDir;
      // On another machine the names in the command are that machine's files: neither the labels
      // nor the change windows kept here describe them. They are as trusted as files fetched from
      // it (the file-transfer tools' `external`), or less when the command says so (`curl`).
      const elsewhere = ranOn ?? remoteHostOf(params);
      if (elsewhere !== null && lessTrusted("external", trust.level)) {
        trust = { level: "external", reason: `ran on ${elsewhere}, whose files provenant does not label` };
      }
      session.execLevel = minTrust(session.execLevel, trust.level);
      return trust;
    }
    if (backgroundOutputTools.has(tool) && byCommand) {
      return { level: session.execLevel, reason: `background output of this session's commands (at ${session.execLevel})` };
    }
    const search = Object.hasOwn(searchTools, tool) ? searchTools[tool] : undefined;
    if (search !== undefined) {
      // Claude Code's Grep prints lines (or names) of any file beneath `path`, Glob the names: a
      // search of the project is as trusted as the worst file it can reach, less what git ignores
      // (ripgrep does not read it).
      // No path (or a blank one) resolves to the workspace itself.
      const given = typeof params["path"] === "string" ? params["path"].trim() : "";
      const root = this.absoluteReadings(given, this.options.workspaceDir)[0] ?? this.options.workspaceDir;
      const pattern = params["pattern"];
      if (search === "glob" && typeof pattern === "string") return this.globLevel(pattern, root, gitIgnored(root)) ?? this.fileLevel(pattern, root);
      return this.unignoredTreeLevel(root);
    }
    if (fileReadTools.has(tool)) {
      const path = filePathParam(params);
      return path === undefined ? null : this.fileLevel(path);
    }
    return null;
  }

  /**
   * A file written while the turn is tainted, or by a call whose output is tainted, is labelled with
   * that level (the caller passes the worse of the two); a whole rewrite at trusted clears it.
   * Beside the files a call names, an `exec` below trusted that may write by names it chooses, or
   * that the host runs in the background (by `params`, or by what its `output` says), labels every
   * file that changed beneath the directories it ran in or named while it ran (`git clone`'s tree,
   * an archive's members, what a script wrote), and `process` those changed since the session's
   * last such command began: a backgrounded command goes on writing after its result. `startedAt`
   * is when the call was decided, by the disk's clock (`Date.now()`); `now` only dates the labels;
   * `reportedBy` is the process that reported the result (the host's processes are found from
   * it). Returns what could not be looked at.
   */
  recordWrites(session: WritingSession, taint: TrustLevel, tool: string, params: Readonly<Record<string, unknown>>, now: Date, startedAt: number | null, reportedBy: number = process.pid, output: unknown = undefined): string[] {
    const { base, targets, command } = this.named(tool, params);
    const written = targets.flatMap((target) => this.absoluteReadings(target, base));
    if (taint === "trusted") {
      if (tool === "write" || tool === "Write") for (const absolute of written) this.options.fileLabels.clear(absolute);
      return [];
    }
    const label: FileLabel = { level: taint, sessionId: session.sessionId, tool, at: now.toISOString() };
    const changed: ChangedFiles = { paths: [], problems: [] };
    // What a command may have written anywhere, by names it chose, is read at its level while it
    // was made or last changed in this window (fileLevel); the walks below label what lies where
    // the command ran, which also outlasts a later change.
    let window: ChangeWindow | undefined;
    // A change time may lag the clock by a kernel tick: a change just after the start may read as
    // just before it; one before the result cannot read as after it, but it has a fraction of a
    // millisecond the clock's whole milliseconds leave off (`Date.now()` 542 for a change at 542.04).
    const windowFrom = (since: number): ChangeWindow => ({ ...label, since: since - CHANGE_TIME_SLACK_MS, until: Date.now() + 1 });
    // A file tool writes only what it names.
    if (command !== null) {
      // A command the host runs in the background writes what it prints into a file the host
      // names, which the model reads later: a window covers it, whatever the program. Claude Code:
      // asked for (`run_in_background`), or moved there while it ran (the owner's Ctrl+B, its
      // timeout in a session that takes input), which its result says by a `backgroundTaskId`.
      const background = params.run_in_background === true || (isRecord(output) && typeof output.backgroundTaskId === "string");
      if (command.mayWriteUnnamed || background) {
        // A host that reported neither the call's start nor its duration to this process: as far
        // back as the longest a command runs in the foreground.
        const since = startedAt ?? Date.now() - UNKNOWN_START_WINDOW_MS;
        session.backgroundSince = since;
        window = windowFrom(since);
        // A process the command left running (`nohup`, a daemon, a job the host keeps in the
        // background) may write after the result: the window stays open until the last has ended.
        // Only with the call's start known: ten minutes back, the processes started since are the
        // host's whole recent work, not this command's.
        const directories = [base, this.options.workspaceDir, ...this.namedDirectories(command.words, base)];
        const left = startedAt === null ? null : processesLeftRunning(since, reportedBy, directories.map((dir) => realPathOrNull(dir) ?? dir));
        if (left !== null && left.length > 0) window = { ...window, until: OPEN, running: left.length > MAX_RUNNING_PROCESSES ? [] : left };
        this.findChangedFiles(directories, since, changed);
      }
    } else if (this.options.catalogue.backgroundOutputTools.has(tool) && session.backgroundSince !== null) {
      window = windowFrom(session.backgroundSince);
      this.findChangedFiles([this.options.workspaceDir], session.backgroundSince, changed);
    }
    // A file vouched for as it is now (a signed file put back after the call) holds what the
    // owner vouched for, whatever window its change time is in; a host reporting the call twice
    // must not label it again.
    const labels = this.options.fileLabels;
    const vouchedNow = (path: string): boolean => {
      let found: Stats | undefined;
      try {
        found = lstatSync(path, { throwIfNoEntry: false });
      } catch {
        return false; // Unreadable (a component not a directory): labelled as the call wrote it.
      }
      return found !== undefined && labels.vouchedAt(`${found.dev}:${found.ino}`) === found.ctimeMs;
    };
    labels.mark([...written, ...changed.paths].filter((path) => !vouchedNow(path)), label, window);
    return changed.problems;
  }

  /**
   * The files the host saved a call's whole output into (core/saved-outputs.ts) hold that output,
   * whatever the turn composed: each is labelled at the output's trust. Only a file made or changed
   * since the call began: a result that names an older file (a JSON document a command printed,
   * naming the owner's notes) labels nothing.
   */
  labelSavedOutputs(session: WritingSession, trust: TrustLevel, tool: string, paths: readonly string[], now: Date, startedAt: number | null): void {
    if (trust === "trusted") return;
    const since = startedAt === null ? null : startedAt - CHANGE_TIME_SLACK_MS;
    const saved = paths.filter((path) => {
      try {
        const found = lstatSync(path);
        return found.isFile() && (since === null || found.ctimeMs >= since);
      } catch {
        return false; // Not there, or a component not a directory.
      }
    });
    // By the name the result gives and where it leads: a later read may name either.
    const names = saved.flatMap((path) => [path, realPathOrNull(path) ?? path]);
    this.options.fileLabels.mark(names, { level: trust, sessionId: session.sessionId, tool, at: now.toISOString() });
  }

  /**
   * Before a call runs: each file it names that a window covers (a file tool's targets; any word of
   * a command, which may write what it names without saying so: `sed -i`) is labelled at the
   * window's level. The call's change moves the file's change time on, and a file only changed (not
   * made) in the window would then leave it, with what the window's command wrote in it read as
   * trusted (`sed -i`, or an edit at trusted, of a file a script below trusted had appended to).
   * Harmless for a file the call only reads, or when it does not run: the file already reads at
   * that level. A whole-file rewrite at trusted then clears the label, as it clears any.
   */
  holdWindows(tool: string, params: Readonly<Record<string, unknown>>): void {
    const labels = this.options.fileLabels;
    if (!labels.hasWindows) return;
    const { base, targets, command } = this.named(tool, params);
    for (const name of command === null ? targets : [...targets, ...command.words]) {
      for (const reading of hostPathReadings(name, "tool", this.options.home)) {
        // One look at each name first: most of a command's words are no file at all.
        const window = this.windowOf(resolve(base, reading));
        if (window === undefined) continue;
        // Held already (by an earlier call): the store is not locked and read again for nothing.
        const unheld = this.absoluteReadings(reading, base).filter((path) => {
          const held = labels.get(path);
          return held === undefined || lessTrusted(window.level, held.level);
        });
        if (unheld.length > 0) labels.mark(unheld, { level: window.level, sessionId: window.sessionId, tool: window.tool, at: window.at });
      }
    }
  }

  /**
   * What a call names, as written, and where its relative paths start: the files it writes by name
   * (a file tool's targets, an `exec`'s redirections and the like), and an `exec`'s command as read.
   */
  private named(tool: string, params: Readonly<Record<string, unknown>>): { base: string; targets: readonly string[]; command: ExecReading | null } {
    const { fileWriteTools, execTools } = this.options.catalogue;
    const base = this.options.workspaceDir;
    if (fileWriteTools.has(tool)) return { base, targets: writeTargets(tool, params, this.options.home, extractPatchTargets), command: null };
    const script = codeModeScript(params);
    const text = typeof params["command"] === "string" ? params["command"] : script;
    if (!execTools.has(tool) || text === null) return { base, targets: [], command: null };
    const read = readExec(text);
    // A script writes by names it computes, like a program that chooses its own.
    const command = script !== null ? { ...read, mayWriteUnnamed: true } : read;
    return { base: this.baseDir(workdirOf(params)), targets: command.files, command };
  }

  /** Existing directories a command's words name, less those that hold the home directory or the workspace (`/`, `~`: everything). */
  private namedDirectories(words: readonly string[], base: string): string[] {
    const out: string[] = [];
    for (const word of words) {
      for (const path of this.absoluteReadings(word, base)) {
        if (out.length >= MAX_NAMED_DIRECTORIES) return out;
        if (!isDirectory(path) || holds(path, this.options.home) || holds(path, this.options.workspaceDir)) continue;
        out.push(path);
      }
    }
    return out;
  }

  /**
   * Every file beneath `roots` whose inode changed at or after `since` (wall-clock ms): a file's
   * change time is set by the kernel on any write, rename or creation and cannot be set back by
   * the program (unlike the modification time, which `tar` restores). The guard's own state and
   * directories already below trusted are not entered; links are found, not followed; a `.git`
   * is not entered but found itself when the history in it changed (`historyLevel`).
   */
  private findChangedFiles(roots: readonly string[], since: number, changed: ChangedFiles): void {
    const walked: string[] = [];
    const state = join(this.options.workspaceDir, ".provenance");
    for (const root of roots) {
      let real: string;
      try {
        real = realpathSync.native(root);
      } catch {
        continue;
      }
      if (walked.some((w) => holds(w, real))) continue;
      walked.push(real);
      // The repository the command ran in may lie above the directory: `git pull` in `src/`.
      const marker = repositoryMarker(real);
      if (marker !== null && historyChanged(marker, since)) changed.paths.push(marker);
      const complete = walkEntries(real, NOTHING_SKIPPED, (path, entry) => {
        if (entry.name === ".git") {
          // A repository's history is labelled as a whole, on its `.git`: what git prints of it.
          if (historyChanged(path, since)) changed.paths.push(path);
          return false;
        }
        if (entry.isDirectory()) {
          // A directory is not labelled: its entries are, and a label on it would outlast theirs.
          if (path === state) return false;
          const level = this.fileLevel(path);
          return level === null || level.level === "trusted";
        }
        if (changedSince(path, since)) changed.paths.push(path);
        return false;
      });
      if (!complete) changed.problems.push(`more than ${MAX_TREE_ENTRIES} entries under ${real}: files changed past them are not labelled, only read at this command's level by when they were made or changed`);
    }
  }

  /**
   * What a patch-printing git command showed (core/exec-trust.ts `patchLevel`): the worst file it
   * shows a change of, or, when git cannot say which, the whole repository's worst.
   */
  patchLevel(subcommand: string, args: readonly string[], base: string): ExecTrust | null {
    const changed = changedFiles(subcommand, args, base);
    if (changed === null) return null;
    if (changed.files === null) return this.treeLevel(changed.top, base);
    let worst: ExecTrust | null = null;
    for (const file of changed.files) worst = worseOf(worst, this.fileLevel(file, base));
    return worst;
  }

  /**
   * What git prints of the history of the repository holding `dir`: its `.git`'s level (a label
   * recordWrites puts on a history a command below trusted wrote, or a `fileTrust` rule); null
   * outside a repository.
   */
  historyLevel(dir: string): ExecTrust | null {
    const marker = repositoryMarker(dir);
    return marker === null ? null : this.fileLevel(marker);
  }

  /**
   * A file's trust: the first `fileTrust` rule it matches, its label and the window of a command
   * that may have written it (made or last changed while it ran), whichever is worst; null when
   * none says anything.
   */
  fileLevel(rawPath: string, base: string = this.options.workspaceDir): ExecTrust | null {
    const labels = this.options.fileLabels;
    if (labels.unreadable !== null) return { level: "untrusted", reason: labels.unreadable };
    let worst: ExecTrust | null = null;
    for (const absolute of this.absoluteReadings(rawPath, base)) {
      const rel = relative(this.options.workspaceDir, absolute);
      const inside = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : null;
      const label = labels.get(absolute);
      const found = [
        this.fileTrust.levelFor(inside, absolute),
        label === undefined ? null : { level: label.level, reason: `${absolute} was written by ${label.tool} at ${label.level} (${label.at})` },
        labels.hasWindows ? this.windowLevel(absolute) : null,
      ];
      for (const f of found) worst = worseOf(worst, f);
    }
    return worst;
  }

  /**
   * A file (not a directory: its entries are judged) made or last changed in a window of a command
   * below trusted that may have written it, unless the owner vouched for it as it is.
   */
  private windowLevel(absolute: string): ExecTrust | null {
    const window = this.windowOf(absolute);
    if (window === undefined) return null;
    const still = window.until !== OPEN ? "" : window.running === undefined || window.running.length === 0 ? ", or since: it left more processes running than are followed" : `, or since: it left ${runningText(window.running, 3)} running`;
    return { level: window.level, reason: `${absolute} was made or changed during a command at ${window.level} that may write files by names it chooses (${window.tool}, ${window.at}${still})` };
  }

  /** The window a file (not a directory) was made or last changed in, unless vouched for as it is. */
  private windowOf(absolute: string): ChangeWindow | undefined {
    let stat: Stats;
    try {
      stat = statSync(absolute);
    } catch {
      return undefined; // not there, or not readable by the gateway: nor by the tool that names it
    }
    return stat.isDirectory() ? undefined : this.options.fileLabels.windowFor(stat);
  }

  /**
   * The trust of everything a recursive read of `rawPath` can print: the path's own level and the
   * worst file or directory beneath it (by `fileTrust` and labels), linked directories included. A
   * directory below trusted stands for all it holds and is not entered; `.git` is not entered; past MAX_TREE_ENTRIES
   * entries the rest is not looked at and the read counts as untrusted.
   */
  treeLevel(rawPath: string, base: string = this.options.workspaceDir, skipped: SkippedPath = NOTHING_SKIPPED): ExecTrust | null {
    let worst = this.fileLevel(rawPath, base);
    for (const root of this.absoluteReadings(rawPath, base)) {
      // Followed, as `grep -r` and `find` follow a link named on their command line; nothing
      // there has nothing beneath it either.
      if (!isDirectory(root)) continue;
      const complete = walkEntries(root, skipped, (path, entry) => {
        const found = this.fileLevel(path);
        worst = worseOf(worst, found);
        // A directory a rule or label makes less than trusted stands for all it holds (a
        // vendored tree is not walked file by file); one a rule trusts (the seed's `**`) is
        // entered, since a file written under taint, or one a rule trusts less, may lie beneath.
        // A link is judged where it leads by fileLevel itself, and a linked directory is entered
        // (`grep -R`, `rg -L` and `find -L` follow it; walkEntries does not go round a loop).
        if (found !== null && found.level !== "trusted") return false;
        return entry.name !== ".git" && (entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(path)));
      });
      if (!complete) worst = worseOf(worst, { level: "untrusted", reason: `more than ${MAX_TREE_ENTRIES} entries under ${root} to check` });
    }
    return worst;
  }

  /** A recursive read of `root` (absolute) that leaves out what git ignores there, as ripgrep, `git ls-files` and `fd` do. */
  private unignoredTreeLevel(root: string): ExecTrust | null {
    return this.treeLevel(root, root, gitIgnored(root));
  }

  /**
   * The worst file or directory a shell glob matches on disk (by `fileTrust` and labels), looked
   * for only as deep as the glob reaches (`**` reads like a recursive read of its base); past
   * MAX_TREE_ENTRIES entries it counts as untrusted.
   */
  globLevel(rawPattern: string, base: string = this.options.workspaceDir, skipped: SkippedPath = NOTHING_SKIPPED): ExecTrust | null {
    let worst: ExecTrust | null = null;
    for (const reading of hostPathReadings(rawPattern, "tool", this.options.home)) {
      const pattern = resolve(base, reading);
      const scan = picomatch.scan(pattern);
      if (!scan.isGlob) continue;
      const root = scan.base === "" ? "/" : scan.base;
      if (scan.glob.includes("**")) {
        worst = worseOf(worst, this.treeLevel(root, base, skipped));
        continue;
      }
      const depth = scan.glob.split("/").length;
      const matches = picomatch(pattern);
      const complete = walkEntries(root, skipped, (path, entry, level) => {
        if (level < depth) return entry.isDirectory() || entry.isSymbolicLink();
        if (matches(path)) worst = worseOf(worst, this.fileLevel(path));
        return false;
      });
      if (!complete) worst = worseOf(worst, { level: "untrusted", reason: `more than ${MAX_TREE_ENTRIES} entries to match ${rawPattern} against` });
    }
    return worst;
  }

  /** Where an `exec`'s relative paths start: its `workdir`, else the workspace. */
  private baseDir(workdir: string | null): string {
    if (workdir === null) return this.options.workspaceDir;
    return this.absoluteReadings(workdir, this.options.workspaceDir)[0] ?? this.options.workspaceDir;
  }

  /**
   * The absolute paths a tool's path may name (core/host-paths.ts), with symlinks in the directory
   * resolved where they exist, and the file itself when it is a link (`docs/api.md` pointing into
   * `node_modules/` is read from there).
   */
  private absoluteReadings(rawPath: string, base: string): string[] {
    const out = new Set<string>();
    for (const reading of hostPathReadings(rawPath, "tool", this.options.home)) {
      const lexical = resolve(base, reading);
      out.add(lexical);
      try {
        out.add(join(realpathSync.native(dirname(lexical)), basename(lexical)));
      } catch {
        // A directory that does not exist has no other name.
      }
      try {
        out.add(realpathSync.native(lexical));
      } catch {
        // Not there (yet), or a dangling link: only the names above.
      }
    }
    return [...out];
  }
}

/** How many entries a recursive read's directories are looked through for files of lower trust. */
const MAX_TREE_ENTRIES = 20_000;
/** How many directories a command's words name are looked through for what it wrote. */
const MAX_NAMED_DIRECTORIES = 8;
/** The longest a command runs before its result (Claude Code's longest Bash timeout). */
const UNKNOWN_START_WINDOW_MS = 10 * 60_000;
/** A change time may lag the clock by a kernel tick. */
const CHANGE_TIME_SLACK_MS = 50;

/** What a look for changed files found, and what it could not look at. */
interface ChangedFiles {
  readonly paths: string[];
  readonly problems: string[];
}

/** What recordWrites keeps per session: when its last command below trusted began (wall-clock ms). */
export interface WritingSession {
  readonly sessionId: string;
  backgroundSince: number | null;
}

/** Whether `path` is `inner` or holds it. */
function holds(path: string, inner: string): boolean {
  return inner === path || inner.startsWith(path.endsWith(sep) ? path : path + sep);
}

/**
 * Whether a change time (ms) is at or after `since`. A file system that keeps whole seconds
 * (ext3, HFS+, some network mounts) puts a change made after `since` in its second at the second's
 * start, so such a time counts from the second `since` fell in.
 */
export function changedAfter(ctimeMs: number, since: number): boolean {
  if (ctimeMs >= since - CHANGE_TIME_SLACK_MS) return true;
  return ctimeMs % 1000 === 0 && ctimeMs >= Math.floor(since / 1000) * 1000;
}

/** Files git rewrites when history arrives or moves: a fetch, a pull, a commit, a checkout. */
const HISTORY_FILES = ["HEAD", "FETCH_HEAD", "ORIG_HEAD", "packed-refs", join("logs", "HEAD")];

/** Whether a repository's `.git` (or a worktree's `.git` file) was made or its history changed since. */
function historyChanged(marker: string, since: number): boolean {
  return changedSince(marker, since) || (isDirectory(marker) && HISTORY_FILES.some((name) => changedSince(join(marker, name), since)));
}

/** The `.git` of the repository holding `dir` (a directory, or a worktree's file), or null. */
function repositoryMarker(dir: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    const marker = join(at, ".git");
    if (existsSync(marker)) return marker;
    if (dirname(at) === at) return null;
  }
}

function changedSince(path: string, since: number): boolean {
  try {
    return changedAfter(lstatSync(path).ctimeMs, since);
  } catch {
    return false;
  }
}

interface WalkedDirectory {
  readonly dir: string;
  readonly depth: number;
  /** Where it is on disk, once listed. */
  real: string;
  readonly parent: WalkedDirectory | null;
}

/**
 * Visits the entries beneath `root` depth first, `depth` 1 for its own, leaving out what `skipped`
 * names; `visit` says whether to enter an entry. False when it stopped at MAX_TREE_ENTRIES entries.
 */
function walkEntries(root: string, skipped: SkippedPath, visit: (path: string, entry: Dirent, depth: number) => boolean): boolean {
  const stack: WalkedDirectory[] = [{ dir: root, depth: 1, real: "", parent: null }];
  let seen = 0;
  while (stack.length > 0) {
    const walked = stack.pop() as WalkedDirectory;
    const { dir, depth } = walked;
    let entries: Dirent[];
    try {
      walked.real = realpathSync.native(dir);
      // A link back to a directory the walk is inside (`docs/up -> ..`) is a loop: not listed
      // again. Two links to one directory are each walked, under their own names.
      if (isInside(walked)) continue;
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > MAX_TREE_ENTRIES) return false;
      const path = join(dir, entry.name);
      if (skipped(path)) continue;
      if (visit(path, entry, depth)) stack.push({ dir: path, depth: depth + 1, real: "", parent: walked });
    }
  }
  return true;
}

function isInside(walked: WalkedDirectory): boolean {
  for (let up = walked.parent; up !== null; up = up.parent) if (up.real === walked.real) return true;
  return false;
}

/**
 * Where an OpenClaw `exec` says it runs when that is not this machine: `host: "node"` (a paired
 * node; OpenClaw reads the value trimmed and in any case). A call that names no host runs where
 * the session's or the configuration's default says; the host's result then names the node
 * (`ranOn`), which is what the guard is told after the call.
 */
function remoteHostOf(params: Readonly<Record<string, unknown>>): string | null {
  const host = params["host"];
  return typeof host === "string" && host.trim().toLowerCase() === "node" ? "a paired node" : null;
}

/** OpenClaw's `exec` runs in `workdir` when given (empty means the default). */
function workdirOf(params: Readonly<Record<string, unknown>>): string | null {
  const workdir = params["workdir"];
  return typeof workdir === "string" && workdir.trim() !== "" ? workdir : null;
}
