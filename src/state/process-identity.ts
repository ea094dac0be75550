import { readFileSync } from "node:fs";

/**
 * Which process a pid named when it was written down: the boot and the process's start time in
 * clock ticks since boot (Linux `/proc`), `<boot id>/<start>`. A pid alone is reused: after a
 * crash and a reboot, the pid in a lock file left behind is as likely as not some other process's
 * now. Null where `/proc` cannot say (another system, a process gone or not ours to read).
 */
export function processIdentity(pid: number): string | null {
  const boot = readOrNull("/proc/sys/kernel/random/boot_id")?.trim();
  const stat = readOrNull(`/proc/${pid}/stat`);
  if (boot === undefined || boot === "" || stat === undefined) return null;
  // `pid (comm) state ppid ...`: the name may hold spaces and parentheses, so fields count from the
  // last `)`; the start time is field 22, the 20th after it.
  const start = stat.slice(stat.lastIndexOf(")") + 1).trim().split(/\s+/)[19];
  return start !== undefined && /^\d+$/.test(start) ? `${boot}/${start}` : null;
}

function readOrNull(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
