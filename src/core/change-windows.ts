import { displayText } from "./safe-display.js";
import { lessTrusted, type TrustLevel } from "./trust-levels.js";

/**
 * A stretch of time, in wall-clock milliseconds, in which a command below trusted ran that may
 * write by names it chooses (a script, `git clone`, an installer). It may have written anywhere
 * (`/tmp`, the home directory, past the bound of the walk that labels what it wrote by name), so
 * a file made or last changed in the window may hold what it wrote, and is read at the window's
 * level. The kernel sets a file's change time on every write, rename and link, and its birth time
 * when it creates the file; no program can set either back.
 */
export interface ChangeWindow {
  readonly since: number;
  /** When it closed; OPEN while a process the command left may still write. */
  readonly until: number;
  readonly level: TrustLevel;
  readonly sessionId: string;
  readonly tool: string;
  readonly at: string;
  /**
   * The processes the command left running, which keep the window open until the last has ended
   * (`nohup`, a daemon, a job the host keeps in the background). An open window with none is held
   * open for good: more were left than can be followed.
   */
  readonly running?: readonly RunningProcess[];
}

/** A process by its pid and the identity that tells it from a later process given the pid (state/process-identity.ts), and its name to show. */
export interface RunningProcess {
  readonly pid: number;
  readonly identity: string;
  readonly name: string;
}

/** The `until` of a window still open: the last time a date can hold. */
export const OPEN = 8.64e15;

/**
 * Processes as the owner can find them: `sleep (pid 4242)`, at most `shown` of them and how many
 * more; a process names itself, so its name is escaped.
 */
export function runningText(running: readonly RunningProcess[], shown: number = running.length): string {
  const named = running.slice(0, shown).map((p) => `${displayText(p.name)} (pid ${p.pid})`).join(", ");
  return running.length > shown ? `${named} and ${running.length - shown} more` : named;
}

/** Past this many processes left running a window stops following them and is held open for good. */
export const MAX_RUNNING_PROCESSES = 64;

/**
 * Past this many windows the two closest are joined into one spanning both (at the worse level):
 * the record stays bounded and a window only ever widens, so nothing it covered is forgotten.
 */
export const MAX_CHANGE_WINDOWS = 1024;

/**
 * The span of times a file's change time stands for, in the whole milliseconds windows are kept
 * in: its millisecond (a change time carries a fraction of one, and a file changed in the
 * millisecond a window ended at was changed in the window), or, on a file system that keeps whole
 * seconds (ext3, HFS+, some network mounts), the whole second it was rounded down from.
 */
export function changeTimeSpan(ctimeMs: number): [from: number, to: number] {
  const millisecond = Math.floor(ctimeMs);
  return ctimeMs % 1000 === 0 ? [millisecond, millisecond + 999] : [millisecond, millisecond];
}

/** Windows kept in order and disjoint: a window overlapping others is joined with them. */
export class ChangeWindows {
  private windows: ChangeWindow[] = [];

  get size(): number {
    return this.windows.length;
  }

  entries(): readonly ChangeWindow[] {
    return this.windows;
  }

  /**
   * Records a window; true when the record changed (false when a window as bad already covers it
   * and follows every process it left running).
   */
  add(window: ChangeWindow): boolean {
    if (!(window.since <= window.until)) throw new RangeError(`a change window must not end before it starts (${window.since} to ${window.until})`);
    const overlapping = this.windows.filter((w) => w.since <= window.until && w.until >= window.since);
    const covers = (w: ChangeWindow): boolean =>
      w.since <= window.since && w.until >= window.until && !lessTrusted(window.level, w.level) && (window.running ?? []).every((p) => follows(w, p));
    if (overlapping.some(covers)) return false;
    const joined = overlapping.reduce(join, window);
    this.windows = [...this.windows.filter((w) => !overlapping.includes(w)), joined].sort((a, b) => a.since - b.since);
    while (this.windows.length > MAX_CHANGE_WINDOWS) this.joinClosest();
    return true;
  }

  /**
   * The window a file was made or last changed in, the worse if both: a file a command made keeps
   * its birth time through a later `chmod`, `touch` or `mv` (which move its change time out of the
   * window); one it changed keeps the change time until the next change. A birth time of 0 is a
   * file system that keeps none.
   */
  covering(file: { readonly ctimeMs: number; readonly birthtimeMs: number }): ChangeWindow | undefined {
    const changed = this.during(...changeTimeSpan(file.ctimeMs));
    const made = file.birthtimeMs > 0 ? this.during(...changeTimeSpan(file.birthtimeMs)) : undefined;
    if (made === undefined) return changed;
    return changed === undefined || lessTrusted(made.level, changed.level) ? made : changed;
  }

  /** The windows still open, which processes left running keep so. */
  open(): readonly ChangeWindow[] {
    return this.windows.filter((w) => w.until === OPEN);
  }

  /**
   * Closes each open window none of whose processes still runs (`running` says which do) at the
   * time `now` reads after that was looked at: whatever such a process wrote has a change time
   * before it. A window held open for good stays so. True when a window closed.
   */
  closeEnded(running: (process: RunningProcess) => boolean, now: () => number): boolean {
    const ended = this.ended(running);
    if (ended.length === 0) return false;
    const at = now();
    this.windows = this.windows.map((w) => (ended.includes(w) ? closedAt(w, at) : w));
    return true;
  }

  /** The open windows that follow processes, none of which still runs. */
  ended(running: (process: RunningProcess) => boolean): readonly ChangeWindow[] {
    return this.windows.filter((w) => w.until === OPEN && w.running !== undefined && w.running.length > 0 && !w.running.some(running));
  }

  /** Closes every open window, held open for good or not, at `now`: the owner's word that what they follow writes nothing more. */
  closeAll(now: number): boolean {
    const open = this.windows.some((w) => w.until === OPEN);
    this.windows = this.windows.map((w) => (w.until === OPEN ? closedAt(w, now) : w));
    return open;
  }

  /** The first window that overlaps the span from `from` to `to` (a change time, or the second a coarse one stands for), if any. */
  during(from: number, to: number = from): ChangeWindow | undefined {
    // The first window that ends at or after `from`: the only one that can start by `to` first.
    let low = 0;
    let high = this.windows.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.windows[middle]!.until < from) low = middle + 1;
      else high = middle;
    }
    const window = this.windows[low];
    return window !== undefined && window.since <= to ? window : undefined;
  }

  private joinClosest(): void {
    let closest = 0;
    for (let i = 1; i < this.windows.length - 1; i++) {
      if (this.windows[i + 1]!.since - this.windows[i]!.until < this.windows[closest + 1]!.since - this.windows[closest]!.until) closest = i;
    }
    this.windows.splice(closest, 2, join(this.windows[closest]!, this.windows[closest + 1]!));
  }
}

/**
 * One window spanning both, at the worse level (with that window's session and tool), open while a
 * process either left runs; held open for good when either was, or they left more than can be followed.
 */
function join(a: ChangeWindow, b: ChangeWindow): ChangeWindow {
  const worse = lessTrusted(b.level, a.level) ? b : a;
  const { running: _worse, ...rest } = worse;
  const joined = { ...rest, since: Math.min(a.since, b.since), until: Math.max(a.until, b.until) };
  if (joined.until !== OPEN) return joined;
  if (heldForGood(a) || heldForGood(b)) return { ...joined, running: [] };
  const running = [...(a.running ?? [])];
  for (const p of b.running ?? []) if (!running.some((q) => sameProcess(p, q))) running.push(p);
  return { ...joined, running: running.length > MAX_RUNNING_PROCESSES ? [] : running };
}

/** The window closed at `at` (or where it began, if that is later), following nothing. */
function closedAt(w: ChangeWindow, at: number): ChangeWindow {
  const { running: _ended, ...rest } = w;
  return { ...rest, until: Math.max(w.since, at) };
}

/** An open window that follows no process: only the owner's word closes it (`provenant labels close`). */
function heldForGood(w: ChangeWindow): boolean {
  return w.until === OPEN && (w.running === undefined || w.running.length === 0);
}

/** Whether a window stays open while this process runs. */
function follows(w: ChangeWindow, p: RunningProcess): boolean {
  return heldForGood(w) || (w.until === OPEN && (w.running ?? []).some((q) => sameProcess(p, q)));
}

/** A pid and its start: two processes started in one clock tick share the start, never the pid. */
function sameProcess(a: RunningProcess, b: RunningProcess): boolean {
  return a.pid === b.pid && a.identity === b.identity;
}
