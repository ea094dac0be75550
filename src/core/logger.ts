/** Where the engine's operational messages go. Never given a key or a secret. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

export const SILENT_LOGGER: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A logger that writes `[provenant] ...` lines to stderr, with the stack for errors. */
export function consoleLogger(prefix = "[provenant]"): Logger {
  return {
    info: (m) => console.error(`${prefix} ${m}`),
    warn: (m) => console.error(`${prefix} warning: ${m}`),
    error: (m, e) => console.error(`${prefix} error: ${m}${e instanceof Error && e.stack ? `\n${e.stack}` : e === undefined ? "" : `: ${String(e)}`}`),
  };
}
