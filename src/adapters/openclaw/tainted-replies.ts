import { isRecord } from "../../core/json-record.js";
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
  if (!isRecord(message) || message.role !== "assistant") return undefined;
  // Metadata that is no plain object is replaced.
  const meta = isRecord(message.__openclaw) ? message.__openclaw : undefined;
  if (meta?.turnTainted === true) return undefined;
  // A copy: the host may keep the object it passed, and the mark belongs on what it writes.
  return { ...message, __openclaw: { ...meta, turnTainted: true } };
}
