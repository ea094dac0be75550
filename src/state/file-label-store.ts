import { readFileSync, statSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ChangeWindow } from "../core/change-windows.js";
import { FileLabels, type FileIdentity, type FileLabel } from "../core/file-labels.js";
import { writeFileAtomic } from "./atomic-file.js";
import { ensureDirDurable } from "./durable-dir.js";
import { realPathOrNull } from "./file-kind.js";
import { sameStamp, stampOf, type FileStamp } from "./file-stamp.js";
import { withFileLock } from "./file-lock.js";
import { stillRunning } from "./processes-left-running.js";

/** The guard's view of the file labels (core/file-labels.ts) and where they are kept. */
export interface FileLabelStore {
  get(path: string): FileLabel | undefined;
  /**
   * Records one call's tainted writes, and the window in which it may have written elsewhere, all
   * at once (one locked read and write of the store); durable before it returns.
   */
  mark(paths: readonly string[], label: FileLabel, window?: ChangeWindow): void;
  /**
   * The window a file (its `stat`) was made or last changed in (core/change-windows.ts), unless
   * vouched for as it is now; undefined when none.
   */
  windowFor(file: Stats): ChangeWindow | undefined;
  /** Whether any window is on record (when none is, no file's change time need be looked at). */
  readonly hasWindows: boolean;
  /** When the latest window on record of this session began, if one still names it. */
  lastWindowSince(sessionId: string): number | undefined;
  /**
   * A whole-file rewrite from a trusted turn: the path's label goes, and the file is vouched for
   * as it is now if a window covers it (core/change-windows.ts).
   */
  clear(path: string): void;
  /** The change time at which the owner vouched for this file (by identity), if any. */
  vouchedAt(file: FileIdentity): number | undefined;
  /** Every label, by path. */
  entries(): [string, FileLabel][];
  /**
   * The owner vouches for a file's content as it is now: every label naming the file goes, under
   * whichever spelling it was kept (as named, through a linked directory, where a link leads), and
   * a window it was made or changed in no longer counts for it until it changes again. Returns the
   * paths whose labels went (the path given, when only a window covered it).
   */
  vouchFor(absolutePath: string): string[];
  /** Picks up labels another process sharing the workspace changed since (cheap when none did). */
  refresh(): void;
  /**
   * Closes each open window whose processes have all ended (core/change-windows.ts); cheap when
   * none is open. Until then a file a process left running changed after the command's result is
   * in its window.
   */
  closeEndedWindows(): void;
  /** The owner closes every open window now (core/change-windows.ts); returns how many were open. */
  closeOpenWindows(): number;
  /** Why the stored labels cannot be read (every file then counts as untrusted), or null. */
  readonly unreadable: string | null;
}

/** What every store answers from the labels it holds. */
abstract class HeldLabels {
  protected labels = new FileLabels();

  get(path: string): FileLabel | undefined {
    return this.labels.get(path);
  }

  entries(): [string, FileLabel][] {
    return this.labels.entries();
  }

  windowFor(file: Stats): ChangeWindow | undefined {
    return this.labels.windowFor(file);
  }

  get hasWindows(): boolean {
    return this.labels.windows.size > 0;
  }

  lastWindowSince(sessionId: string): number | undefined {
    const own = this.labels.windows.entries().filter((w) => w.sessionId === sessionId);
    return own.length === 0 ? undefined : Math.max(...own.map((w) => w.since));
  }

  vouchedAt(file: FileIdentity): number | undefined {
    return this.labels.vouchedAt(file);
  }

  closeEndedWindows(): void {
    // Looked at first in what is held: most of the time no window is open, and nothing is locked or read.
    if (this.labels.windows.ended(stillRunning).length === 0) return;
    this.change((labels) => labels.windows.closeEnded(stillRunning, () => Date.now() + 1));
  }

  closeOpenWindows(): number {
    let open = 0;
    this.change((labels) => {
      open = labels.windows.open().length;
      return labels.windows.closeAll(Date.now() + 1);
    });
    return open;
  }

  protected abstract change(apply: (labels: FileLabels) => boolean): void;
}

/** Labels held in memory only (a guard built without a workspace, tests). */
export class MemoryFileLabelStore extends HeldLabels implements FileLabelStore {
  readonly unreadable = null;
  mark(paths: readonly string[], label: FileLabel, window?: ChangeWindow): void {
    for (const path of paths) this.labels.mark(path, label);
    if (window !== undefined) this.labels.windows.add(window);
  }
  clear(path: string): void {
    this.labels.clear(path);
    vouchForContent(this.labels, path);
  }
  vouchFor(absolutePath: string): string[] {
    return removeSpellings(this.labels, absolutePath);
  }
  refresh(): void {}
  protected change(apply: (labels: FileLabels) => boolean): void {
    apply(this.labels);
  }
}

/**
 * `<workspace>/.provenance/file-labels.json`. Each change re-reads the file under a lock (another
 * gateway may share the workspace), applies itself and writes the whole file atomically. A file
 * that cannot be parsed is left exactly as it is and reported; until the owner repairs or removes
 * it every file counts as `untrusted`, because forgetting the labels would make tainted files
 * trusted again.
 */
export class WorkspaceFileLabelStore extends HeldLabels implements FileLabelStore {
  private readonly dir: string;
  private readonly path: string;
  /** The file as last read; another stamp means another process wrote it since. */
  private stamp: FileStamp | null = null;
  unreadable: string | null = null;

  constructor(workspaceDir: string) {
    super();
    this.dir = join(workspaceDir, ".provenance");
    this.path = join(this.dir, "file-labels.json");
    this.labels = this.load() ?? new FileLabels();
  }

  /** Every window, oldest first. */
  windows(): readonly ChangeWindow[] {
    return this.labels.windows.entries();
  }

  refresh(): void {
    // Once unreadable, every file stays untrusted in this process (`unreadable` is never reset: the
    // labels marked since are held only here); a repaired file is trusted when the guard next starts.
    if (sameStamp(stampOf(this.path), this.stamp)) return;
    // The file is only ever replaced whole (renamed into place), so it is read without the lock.
    const current = this.load();
    if (current !== undefined) this.labels = current;
  }

  mark(paths: readonly string[], label: FileLabel, window?: ChangeWindow): void {
    if (paths.length === 0 && window === undefined) return;
    this.change((labels) => [...paths.map((path) => labels.mark(path, label)), window !== undefined && labels.windows.add(window)].includes(true));
  }

  clear(path: string): void {
    this.change((labels) => [labels.clear(path), vouchForContent(labels, path)].includes(true));
  }

  vouchFor(absolutePath: string): string[] {
    let gone: string[] = [];
    this.change((labels) => {
      gone = removeSpellings(labels, absolutePath);
      return gone.length > 0;
    });
    return gone;
  }

  protected change(apply: (labels: FileLabels) => boolean): void {
    if (this.unreadable !== null) {
      apply(this.labels); // kept for this process; the unreadable file is never overwritten
      return;
    }
    ensureDirDurable(this.dir);
    withFileLock(`${this.path}.lock`, () => {
      const current = this.load();
      if (current === undefined) {
        apply(this.labels);
        return;
      }
      if (apply(current)) {
        writeFileAtomic(this.path, current.serialize());
        this.stamp = stampOf(this.path);
      }
      this.labels = current;
    });
  }

  /** The stored labels, a fresh set when there is no file, or undefined (and `unreadable` set). */
  private load(): FileLabels | undefined {
    this.stamp = stampOf(this.path);
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "ENOENT") return new FileLabels();
      this.unreadable = `${this.path} cannot be read (${error instanceof Error ? error.message : String(error)})`;
      return undefined;
    }
    try {
      return FileLabels.parse(text);
    } catch (error) {
      this.unreadable = `${this.path} is not valid (${error instanceof Error ? error.message : String(error)}); fix or remove it`;
      return undefined;
    }
  }
}

/**
 * Removes every label that names the file at `absolutePath`, and vouches for the file as it is
 * when a window covers it; returns the labels' paths (and `absolutePath` for the window).
 */
function removeSpellings(labels: FileLabels, absolutePath: string): string[] {
  const target = realPathOrNull(absolutePath);
  const named = new Set([absolutePath, join(realPathOrNull(dirname(absolutePath)) ?? dirname(absolutePath), basename(absolutePath))]);
  const gone = labels.entries().flatMap(([path]) => (named.has(path) || (target !== null && realPathOrNull(path) === target) ? [path] : []));
  for (const path of gone) labels.clear(path);
  if (vouchForContent(labels, absolutePath) && !gone.includes(absolutePath)) gone.push(absolutePath);
  return gone;
}

/** Vouches for a file's content as of its change time, when a window covers it; true when that is new. */
function vouchForContent(labels: FileLabels, absolutePath: string): boolean {
  let stat: Stats;
  try {
    stat = statSync(absolutePath);
  } catch {
    return false;
  }
  return labels.windows.covering(stat) !== undefined && labels.vouch(`${stat.dev}:${stat.ino}`, stat.ctimeMs);
}
