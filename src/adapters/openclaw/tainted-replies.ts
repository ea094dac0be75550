import type { TrustLevel } from "../../core/trust-levels.js";

/**
 * OpenClaw's memory keeps what sessions said: its dreaming sweep and `openclaw memory
 * session-backfill` read the transcripts back and promote the lines they find durable into
 * `MEMORY.md`, which every later session loads as its own context. They leave out a line whose
 * origin is untrusted, and OpenClaw reads an assistant message's origin from one mark it writes
 * itself, `__openclaw.turnTainted`, set only after a tool that declares network content
 * (`web_fetch`). A reply that repeats a mail `read` from disk, or a page an `exec` of `curl`
 * fetched, carries no mark, so the page's words could become the next session's trusted memory.
 *
 * An assistant message written while the guard holds the session below `trusted` gets the host's
 * own mark, so its memory treats it as the host treats a turn after `web_fetch`. A message already
 * marked, any other role, and a session the guard holds trusted are left as they are (undefined).
 */
export function markedAsTainted<M>(message: M, taint: TrustLevel | undefined): M | undefined {
  if (taint === "trusted" || taint === undefined) return undefined;
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const record = message as Record<string, unknown>;
  if (record.role !== "assistant") return undefined;
  const meta = plainRecord(record.__openclaw);
  if (meta?.turnTainted === true) return undefined;
  // A copy: the host may keep the object it passed, and the mark belongs on what it writes.
  return { ...message, __openclaw: { ...meta, turnTainted: true } };
}

/** The host's metadata object, or undefined when it is absent or not a plain object (then it is replaced). */
function plainRecord(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return value as Record<string, unknown>;
}
