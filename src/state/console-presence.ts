import { lstatSync, readdirSync, unlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "./atomic-file.js";
import { ensureDirDurable } from "./durable-dir.js";
import { isProcessAlive } from "./file-lock.js";
import type { PendingApprovalStore } from "./pending-approval-store.js";
import { readStateFile } from "./state-file-read.js";

/**
 * Whether the owner is looking at the approvals inbox, so that a process holding a call knows
 * waiting for an answer is worth it. A console with the inbox open keeps a heartbeat file,
 * `<approvals>/watchers/<pid>.json`, whose modification time it refreshes every
 * `HEARTBEAT_INTERVAL_MS`; a holder counts it while it is fresher than `HEARTBEAT_FRESH_MS` and the
 * process it names is alive.
 *
 * A heartbeat only ever makes a holder wait (at most its configured time) before the call fails as
 * it would have: it approves nothing. So a file planted by anyone who can write the directory buys
 * them a delay, no more, and the reader does not need to trust it beyond refusing what would make
 * it read far (symbolic links, huge files).
 */
export const HEARTBEAT_INTERVAL_MS = 1000;
export const HEARTBEAT_FRESH_MS = 5000;

const MAX_HEARTBEAT_BYTES = 4096;
const PID_FILE = /^([1-9][0-9]{0,9})\.json$/u;

const heartbeatSchema = z.strictObject({
  version: z.literal(2),
  pid: z.int().positive(),
  kind: z.string().min(1).max(100),
  startedAt: z.iso.datetime(),
});

function watchersDir(store: PendingApprovalStore): string {
  return join(store.dir, "watchers");
}

/**
 * This process's heartbeat: `beat()` (re)writes or refreshes it, `stop()` removes it. Errors are
 * the caller's to log: without a heartbeat holders only stop waiting, nothing opens.
 */
export class ConsoleHeartbeat {
  private readonly path: string;
  private written = false;

  constructor(
    private readonly store: PendingApprovalStore,
    private readonly kind = "console",
    private readonly pid = process.pid,
  ) {
    this.path = join(watchersDir(store), `${pid}.json`);
  }

  beat(now: number): void {
    const at = new Date(now);
    if (this.written) {
      try {
        utimesSync(this.path, at, at);
        return;
      } catch (error) {
        if (!(error instanceof Error && "code" in error && error.code === "ENOENT")) throw error;
      }
    }
    ensureDirDurable(watchersDir(this.store));
    writeFileAtomic(this.path, `${JSON.stringify({ version: 2, pid: this.pid, kind: this.kind, startedAt: at.toISOString() })}\n`);
    utimesSync(this.path, at, at);
    this.written = true;
  }

  stop(): void {
    this.written = false;
    try {
      unlinkSync(this.path);
    } catch (error) {
      if (!(error instanceof Error && "code" in error && error.code === "ENOENT")) throw error;
    }
  }
}

/** True when a live console beat within `HEARTBEAT_FRESH_MS` of `now`. Never throws. */
export function someoneIsWatching(store: PendingApprovalStore, now: number, alive: (pid: number) => boolean = isProcessAlive): boolean {
  let names: string[];
  try {
    names = readdirSync(watchersDir(store));
  } catch {
    return false;
  }
  for (const name of names) {
    const match = PID_FILE.exec(name);
    if (match === null) continue;
    const path = join(watchersDir(store), name);
    try {
      const st = lstatSync(path);
      if (!st.isFile()) continue;
      const age = now - st.mtimeMs;
      // A beat from the future is a clock step or a planted file: neither is a fresh console.
      if (age > HEARTBEAT_FRESH_MS || age < -HEARTBEAT_FRESH_MS) continue;
      const file = readStateFile(path, MAX_HEARTBEAT_BYTES);
      if (file.kind !== "ok") continue;
      const record = heartbeatSchema.safeParse(JSON.parse(file.text));
      if (!record.success || String(record.data.pid) !== match[1]) continue;
      if (alive(record.data.pid)) return true;
    } catch {
      continue;
    }
  }
  return false;
}
