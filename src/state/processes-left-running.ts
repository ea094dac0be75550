import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import type { RunningProcess } from "../core/change-windows.js";
import { processIdentity } from "./process-identity.js";

/**
 * A process's start time reads in clock ticks since boot, which Linux counts at USER_HZ, 100 a
 * second on every architecture it runs on; the boot's own time is known to a tick or two.
 */
const TICKS_PER_SECOND = 100;

/**
 * A process started this long before the command may still be the command's: its start is worked
 * out from the uptime and a tick count, each a tick (10 ms) coarse. Kept small: whatever else
 * starts in the window and runs on keeps the window open with it.
 */
const START_SLACK_MS = 100;

interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly startedAt: number;
  readonly identity: string;
  readonly name: string;
}

/**
 * Where an orphan goes besides init: a process that reaps the orphans of its descendants
 * (`PR_SET_CHILD_SUBREAPER`) is found by its name among the host's ancestors, since Linux shows
 * no other process's flag: the service manager of a desktop session, a container's init.
 */
const SUBREAPER_NAMES = /^(?:systemd|tini|catatonit|dumb-init|docker-init)$/;

/**
 * The processes a command that began at `since` (wall-clock milliseconds) may have left running:
 * those of the host's user started since then that still run, other than this process and its
 * ancestors, whose nearest ancestor already running then is the host (this process, or its
 * nearest ancestor that was running then: Claude Code above a hook), or, working in one of
 * `directories` (where the command ran), where a process whose parent ended goes (`nohup cmd &`,
 * `setsid`): init, or a subreaper above the host. The owner's editor and its children, another
 * gateway's commands, a test runner's next worker descend from processes that are none of these;
 * what another program detached meanwhile works elsewhere. Null where the process table cannot be
 * read (no `/proc`: not Linux).
 */
export function processesLeftRunning(since: number, self: number = process.pid, directories?: readonly string[]): RunningProcess[] | null {
  const table = processTable();
  if (table === null) return null;
  const byPid = new Map(table.map((p) => [p.pid, p]));
  const lineage: ProcessEntry[] = [];
  for (let p = byPid.get(self); p !== undefined && !lineage.includes(p); p = byPid.get(p.ppid)) lineage.push(p);
  // A start read from the process table may be a tick or two off: a hook started just after a
  // command that took a moment must not be taken for the host, so both sides use the same slack.
  const from = since - START_SLACK_MS;
  const hostAt = lineage.findIndex((p) => p.startedAt < from);
  const host = lineage[hostAt];
  const reapers = new Set([1, ...lineage.filter((p) => SUBREAPER_NAMES.test(p.name)).map((p) => p.pid)]);
  // The host's user: a command runs as it, and a process of another user (a system service the
  // service manager starts meanwhile) is not the command's.
  const user = host === undefined ? undefined : ownerOf(host.pid);
  const out: RunningProcess[] = [];
  for (const p of table) {
    if (p.startedAt < from || lineage.includes(p) || (user !== undefined && ownerOf(p.pid) !== user)) continue;
    // Up to the nearest ancestor already running when the command began: the host, or, where a
    // parent ended since, the reaper its children were handed on to.
    let parent = p.ppid;
    const seen = new Set<number>([p.pid]);
    for (let up = byPid.get(parent); up !== undefined && up.startedAt >= from && !seen.has(up.pid); up = byPid.get(parent)) {
      seen.add(up.pid);
      parent = up.ppid;
    }
    // The host's own child is the command's (or the host's, which ran it); one handed on to a
    // reaper (or whose parent ended while the table was read) is anyone's, and is the command's
    // when it works where the command did.
    const byHost = parent === host?.pid;
    const handedOn = !byHost && (reapers.has(parent) || !byPid.has(parent));
    if (byHost || (handedOn && worksIn(p.pid, directories))) out.push({ pid: p.pid, identity: p.identity, name: p.name });
  }
  return out;
}

/** Whether the process still runs: the pid names the same process (boot and start time) as when it was written down. */
export function stillRunning(p: RunningProcess): boolean {
  return processIdentity(p.pid) === p.identity;
}

/** Every process `/proc` shows, with its start as a wall-clock time; null when there is no `/proc` to read. */
function processTable(): ProcessEntry[] | null {
  const boot = bootId();
  const uptime = readOrNull("/proc/uptime");
  if (boot === null || uptime === null) return null;
  const seconds = Number(uptime.split(/\s+/)[0]);
  if (!Number.isFinite(seconds)) return null;
  const bootedAt = Date.now() - seconds * 1000;
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return null;
  }
  const out: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    // Gone between the listing and the read: it runs no more.
    const stat = readOrNull(`/proc/${pid}/stat`);
    const entry = stat === null ? null : parseStat(pid, stat, boot, bootedAt);
    if (entry !== null) out.push(entry);
  }
  return out;
}

/**
 * `pid (comm) state ppid ...`: the name may hold spaces and parentheses, so fields count from the
 * last `)`; the parent is the 2nd after it, the start time (ticks since boot) the 20th.
 */
function parseStat(pid: number, stat: string, boot: string, bootedAt: number): ProcessEntry | null {
  const close = stat.lastIndexOf(")");
  const fields = stat.slice(close + 1).trim().split(/\s+/);
  const ppid = Number(fields[1]);
  const start = fields[19];
  if (close < 0 || !Number.isSafeInteger(ppid) || start === undefined || !/^\d+$/.test(start)) return null;
  return {
    pid,
    ppid,
    startedAt: bootedAt + (Number(start) * 1000) / TICKS_PER_SECOND,
    identity: `${boot}/${start}`,
    name: stat.slice(stat.indexOf("(") + 1, close),
  };
}

/**
 * Whether a process's working directory is one of `directories` or beneath one; with none given,
 * any. A directory that cannot be read (gone, deleted) is none of them.
 */
function worksIn(pid: number, directories: readonly string[] | undefined): boolean {
  if (directories === undefined) return true;
  let cwd: string;
  try {
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return false;
  }
  return directories.some((dir) => cwd === dir || cwd.startsWith(dir.endsWith("/") ? dir : `${dir}/`));
}

/** The user a process runs as (its `/proc` entry's owner); undefined once it has gone. */
function ownerOf(pid: number): number | undefined {
  try {
    return statSync(`/proc/${pid}`).uid;
  } catch {
    return undefined;
  }
}

function bootId(): string | null {
  const id = readOrNull("/proc/sys/kernel/random/boot_id")?.trim();
  return id === undefined || id === "" ? null : id;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
