import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runReplay, type ReplayLine } from "../../src/adapters/replay/replay-runner.js";
import { parseTrace } from "../../src/adapters/replay/trace-events.js";
import type { AuditRecordType, AuditSink } from "../../src/core/audit-sink.js";
import type { Logger } from "../../src/core/logger.js";
import { Guard } from "../../src/guard.js";
import { tempDir } from "../temp-dirs.js";

/** The owner as the guard's tests' turns name them (a Telegram id). */
export const OWNER = { id: "+15551234", isOwner: true };

export const TRACE_DIR = fileURLToPath(new URL("./traces/", import.meta.url));

export function tempWorkspace(prefix = "provenant-test-"): string {
  return tempDir(prefix);
}

/** Runs a trace file from test/guard/traces through the real guard and file stores. */
export function replayTrace(name: string, workspaceDir = tempWorkspace()): { lines: ReplayLine[]; workspaceDir: string } {
  const events = parseTrace(readFileSync(join(TRACE_DIR, name), "utf8"));
  const lines = runReplay(events, { openGuard: (config) => Guard.open({ config, workspaceDir }) });
  return { lines, workspaceDir };
}

/** The tool-call lines, as `id:verdict@taint`, for compact assertions. */
export function verdicts(lines: readonly ReplayLine[]): string[] {
  return lines.flatMap((l) => ("id" in l ? [`${l.id}:${l.verdict}@${l.taint}`] : []));
}

export interface LoggedLines {
  readonly info: string[];
  readonly warn: string[];
  readonly error: string[];
}

/** A logger that keeps what the operator would read. */
export function capturingLogger(): { logger: Logger; lines: LoggedLines } {
  const lines: LoggedLines = { info: [], warn: [], error: [] };
  const logger: Logger = {
    info: (m) => void lines.info.push(m),
    warn: (m) => void lines.warn.push(m),
    error: (m) => void lines.error.push(m),
  };
  return { logger, lines };
}

export interface AuditEntry {
  readonly type: AuditRecordType;
  readonly data: Readonly<Record<string, unknown>>;
}

/** An audit sink in memory; `failOn` names a record kind whose write fails (a full disk, say). */
export function memoryAudit(failOn?: string): { audit: AuditSink; records: AuditEntry[] } {
  const records: AuditEntry[] = [];
  const audit: AuditSink = {
    record: (type, data) => {
      if (failOn !== undefined && data.kind === failOn) throw new Error(`audit write of ${failOn} failed`);
      records.push({ type, data });
    },
  };
  return { audit, records };
}
