/**
 * The daemon's log: one event name and flat fields. Details that must not reach a client (paths, tool
 * names, reasons for refusal) go here; secrets and credential values never do.
 */
export type LogLevel = "info" | "warn" | "error";
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;
export type BrokerLog = (level: LogLevel, event: string, fields?: LogFields) => void;

/** JSON lines on stderr. */
export const stderrLog: BrokerLog = (level, event, fields = {}) => {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, event, ...fields })}\n`);
};
