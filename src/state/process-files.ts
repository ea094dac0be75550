import { readFileSync, readlinkSync } from "node:fs";

/**
 * What Linux's /proc says about a live process: undefined when it cannot be read (not Linux, the
 * process is gone, or the kernel hides it from this user).
 */
export function procText(pid: number, name: "cmdline" | "environ" | "stat", encoding: BufferEncoding = "utf8"): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${name}`, encoding);
  } catch {
    return undefined;
  }
}

/** Where one of a process's /proc links leads: the file it executes, its working directory. */
export function procLink(pid: number, name: "exe" | "cwd"): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/${name}`);
  } catch {
    return undefined;
  }
}
