import { ChangeWindows, MAX_RUNNING_PROCESSES, OPEN, type ChangeWindow, type RunningProcess } from "./change-windows.js";
import { isTrustLevel, lessTrusted, type TrustLevel } from "./trust-levels.js";

/**
 * What the guard knows about files written while a turn was tainted: such a file holds content
 * that taint produced, so reading it back later brings that taint back. Keyed by absolute path.
 * A label only ever gets less trusted, except that a whole-file rewrite at `trusted` removes it.
 */
export interface FileLabel {
  readonly level: TrustLevel;
  readonly sessionId: string;
  readonly tool: string;
  readonly at: string;
}

/** Version 2 added change windows and vouched change times; version 1 (labels alone) is still read. */
export const FILE_LABELS_VERSION = 2;

/**
 * How many vouched change times are kept; past it the oldest goes, and that file, if a window
 * still covers its change time, is read at the window's level again (never the other way).
 */
export const MAX_VOUCHED_CHANGES = 10_000;

/** A file by identity, whatever it is called: `device:inode`. */
export type FileIdentity = `${number}:${number}`;

export class FileLabelFormatError extends Error {
  constructor(detail: string) {
    super(`file labels: ${detail}`);
    this.name = "FileLabelFormatError";
  }
}

export class FileLabels {
  private readonly labels = new Map<string, FileLabel>();
  /** When commands that may have written anywhere ran (core/change-windows.ts). */
  readonly windows = new ChangeWindows();
  /** Files the owner vouched for as they were at a change time a window covers, by identity. */
  private readonly vouched = new Map<FileIdentity, number>();

  get(path: string): FileLabel | undefined {
    return this.labels.get(path);
  }

  /** Records a tainted write; true when the stored label changed. */
  mark(path: string, label: FileLabel): boolean {
    const current = this.labels.get(path);
    if (current !== undefined && !lessTrusted(label.level, current.level)) return false;
    this.labels.set(path, label);
    return true;
  }

  /** A whole-file rewrite from a trusted turn: the old content, and its label, are gone. */
  clear(path: string): boolean {
    return this.labels.delete(path);
  }

  get size(): number {
    return this.labels.size;
  }

  /** The owner vouches for a file's content as of its change time `changeTime`. */
  vouch(file: FileIdentity, changeTime: number): boolean {
    if (this.vouched.get(file) === changeTime) return false;
    this.vouched.delete(file);
    this.vouched.set(file, changeTime);
    for (const oldest of this.vouched.keys()) {
      if (this.vouched.size <= MAX_VOUCHED_CHANGES) break;
      this.vouched.delete(oldest);
    }
    return true;
  }

  /** The change time at which the owner vouched for this file, if any. */
  vouchedAt(file: FileIdentity): number | undefined {
    return this.vouched.get(file);
  }

  /** The window a file (its `stat`) was made or last changed in, unless vouched for as it is now. */
  windowFor(file: { readonly dev: number; readonly ino: number; readonly ctimeMs: number; readonly birthtimeMs: number }): ChangeWindow | undefined {
    return this.vouchedAt(`${file.dev}:${file.ino}`) === file.ctimeMs ? undefined : this.windows.covering(file);
  }

  /** Every label, by path. */
  entries(): [string, FileLabel][] {
    return [...this.labels].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  serialize(): string {
    const files: Record<string, FileLabel> = Object.create(null) as Record<string, FileLabel>;
    for (const [path, label] of this.entries()) files[path] = label;
    const vouched: Record<string, number> = Object.create(null) as Record<string, number>;
    for (const [file, changeTime] of this.vouched) vouched[file] = changeTime;
    return `${JSON.stringify({ version: FILE_LABELS_VERSION, files, windows: this.windows.entries(), vouched }, null, 2)}\n`;
  }

  /** Parses the file format; throws FileLabelFormatError on anything else (never a partial read). */
  static parse(text: string): FileLabels {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new FileLabelFormatError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new FileLabelFormatError("not an object");
    const { version, files, windows = [], vouched = {} } = raw as Record<string, unknown>;
    if (version !== 1 && version !== FILE_LABELS_VERSION) throw new FileLabelFormatError(`version ${JSON.stringify(version)} is not 1 or ${FILE_LABELS_VERSION}`);
    if (files === null || typeof files !== "object" || Array.isArray(files)) throw new FileLabelFormatError("files is not an object");
    const labels = new FileLabels();
    for (const [path, value] of Object.entries(files as Record<string, unknown>)) {
      if (!path.startsWith("/")) throw new FileLabelFormatError(`${JSON.stringify(path)} is not an absolute path`);
      if (value === null || typeof value !== "object") throw new FileLabelFormatError(`${JSON.stringify(path)}: not an object`);
      const { level, sessionId, tool, at } = value as Record<string, unknown>;
      if (!isTrustLevel(level)) throw new FileLabelFormatError(`${JSON.stringify(path)}: level ${JSON.stringify(level)} is not a trust level`);
      if (typeof sessionId !== "string" || typeof tool !== "string" || typeof at !== "string") {
        throw new FileLabelFormatError(`${JSON.stringify(path)}: sessionId, tool and at must be strings`);
      }
      labels.labels.set(path, { level, sessionId, tool, at });
    }
    if (!Array.isArray(windows)) throw new FileLabelFormatError("windows is not a list");
    for (const [i, value] of windows.entries()) labels.windows.add(parseWindow(value, i));
    if (vouched === null || typeof vouched !== "object" || Array.isArray(vouched)) throw new FileLabelFormatError("vouched is not an object");
    for (const [file, changeTime] of Object.entries(vouched as Record<string, unknown>)) {
      if (!/^\d{1,20}:\d{1,20}$/.test(file)) throw new FileLabelFormatError(`vouched: ${JSON.stringify(file)} is not device:inode`);
      if (typeof changeTime !== "number" || !Number.isFinite(changeTime)) throw new FileLabelFormatError(`vouched ${file}: the change time is not a number`);
      labels.vouch(file as FileIdentity, changeTime);
    }
    return labels;
  }
}

function parseWindow(value: unknown, index: number): ChangeWindow {
  if (value === null || typeof value !== "object") throw new FileLabelFormatError(`windows[${index}]: not an object`);
  const { since, until, level, sessionId, tool, at } = value as Record<string, unknown>;
  if (!isTime(since) || !isTime(until) || since > until) {
    throw new FileLabelFormatError(`windows[${index}]: since and until must be times, since not after until`);
  }
  if (!isTrustLevel(level)) throw new FileLabelFormatError(`windows[${index}]: level ${JSON.stringify(level)} is not a trust level`);
  if (typeof sessionId !== "string" || typeof tool !== "string" || typeof at !== "string") throw new FileLabelFormatError(`windows[${index}]: sessionId, tool and at must be strings`);
  const { running } = value as Record<string, unknown>;
  if (running === undefined) return { since, until, level, sessionId, tool, at };
  // Processes are followed only while the window is open; one closed with processes would be read
  // as closed, and one open for good lists none.
  if (until !== OPEN) throw new FileLabelFormatError(`windows[${index}]: running processes in a window that is not open`);
  if (!Array.isArray(running) || running.length > MAX_RUNNING_PROCESSES) {
    throw new FileLabelFormatError(`windows[${index}]: running must be a list of at most ${MAX_RUNNING_PROCESSES} processes`);
  }
  return { since, until, level, sessionId, tool, at, running: running.map((p: unknown, i) => parseRunning(p, `windows[${index}].running[${i}]`)) };
}

function parseRunning(value: unknown, where: string): RunningProcess {
  if (value === null || typeof value !== "object") throw new FileLabelFormatError(`${where}: not an object`);
  const { pid, identity, name } = value as Record<string, unknown>;
  if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0) throw new FileLabelFormatError(`${where}: pid must be a positive integer`);
  if (typeof identity !== "string" || identity === "" || identity.length > 256) throw new FileLabelFormatError(`${where}: identity must be a string of 1 to 256 characters`);
  if (typeof name !== "string" || name.length > 256) throw new FileLabelFormatError(`${where}: name must be a string of at most 256 characters`);
  return { pid, identity, name };
}

/** Milliseconds a date can stand for. */
function isTime(value: unknown): value is number {
  return typeof value === "number" && !Number.isNaN(new Date(value).getTime());
}
