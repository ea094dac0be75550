/**
 * The daemon's log: one event name and flat fields. Details that must not reach a client (paths, tool
 * names, reasons for refusal) go here; secrets and credential values never do.
 *
 * Every record about a connection carries the same fields, named the same way: `caller_pid` (the
 * process that sent the request, or before it arrives the one that connected), `caller_exe` (that
 * process's executable, when readable), `tool` (once known) and `tool_pgid` (the tool's process group,
 * once started).
 */
export type LogLevel = "info" | "warn" | "error";
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;
export type BrokerLog = (level: LogLevel, event: string, fields?: LogFields) => void;

/** JSON lines on stderr. */
export const stderrLog: BrokerLog = (level, event, fields = {}) => {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, event, ...fields })}\n`);
};

export interface RateLimit {
  /** Records of one event let through per window. */
  readonly burst: number;
  readonly windowMs: number;
  /** Events never limited: the audit trail of what ran and who asked. */
  readonly exempt: ReadonlySet<string>;
}

export const DEFAULT_RATE_LIMIT: RateLimit = {
  burst: 20,
  windowMs: 10_000,
  exempt: new Set(["tool_started", "tool_finished", "admin_list", "admin_check", "daemon_listening", "daemon_stopping", "daemon_stopped"]),
};

export interface RateLimitedLog {
  readonly log: BrokerLog;
  /** Writes the pending `log_suppressed` counts now (at shutdown). */
  flush(): void;
}

/**
 * Lets each event through `burst` times per window, then counts instead of writing: a peer that
 * reconnects in a loop (300 slow clients wrote 67,000 `server_busy` lines in 20 s) cannot fill the
 * disk or bury other records. When the window ends, one `log_suppressed` record says how many of each
 * event were dropped.
 */
export function rateLimitLog(inner: BrokerLog, limit: RateLimit = DEFAULT_RATE_LIMIT, now: () => number = Date.now): RateLimitedLog {
  const windows = new Map<string, { start: number; count: number; suppressed: number; level: LogLevel }>();
  let timer: NodeJS.Timeout | undefined;
  const flush = (force: boolean): void => {
    const t = now();
    for (const [event, w] of windows) {
      if (!force && t - w.start < limit.windowMs) continue;
      if (w.suppressed > 0) inner("warn", "log_suppressed", { suppressed_event: event, count: w.suppressed, window_ms: limit.windowMs });
      windows.delete(event);
    }
    if (windows.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const log: BrokerLog = (level, event, fields) => {
    if (limit.exempt.has(event)) {
      inner(level, event, fields);
      return;
    }
    const t = now();
    let w = windows.get(event);
    if (w !== undefined && t - w.start >= limit.windowMs) {
      flush(false);
      w = undefined;
    }
    if (w === undefined) {
      w = { start: t, count: 0, suppressed: 0, level };
      windows.set(event, w);
      timer ??= setInterval(() => flush(false), limit.windowMs);
      timer.unref();
    }
    if (w.count < limit.burst) {
      w.count++;
      inner(level, event, fields);
    } else w.suppressed++;
  };
  return { log, flush: () => flush(true) };
}
