import { isRecord } from "../../core/json-record.js";
import type { TrustLevel } from "../../core/trust-levels.js";

/**
 * OpenClaw's memory keeps what sessions said: its dreaming sweep and `openclaw memory
 * session-backfill` read the transcripts back and promote the lines they find durable into
 * `MEMORY.md`, which every later session loads as its own context. It promotes only lines whose
 * origin is the owner or the agent, and reads that origin from marks on each message: an
 * assistant message's `__openclaw.turnTainted`, a user message's `__openclaw.senderIsOwner` and
 * `provenance`. The marks here are written on what OpenClaw is about to write into a transcript
 * (`before_message_write`), where provenant knows more than the host does.
 */

/**
 * OpenClaw sets `turnTainted` only after a tool that declares network content (`web_fetch`). A
 * reply that repeats a mail `read` from disk, or a page an `exec` of `curl` fetched, carries no
 * mark, so the page's words could become the next session's trusted memory.
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

/**
 * The provenance that makes OpenClaw's memory read a user message as the system's, not the
 * owner's: it promotes neither the message nor the replies of its turn. `internal_system` is the
 * one kind that does so and leaves the message as the model and the owner see it (an
 * `inter_session` message is shown to the model as another session's).
 */
export const NOT_THE_OWNERS_WORDS = { kind: "internal_system", sourceTool: "provenant" } as const;

/** The kinds of provenance OpenClaw knows; it keeps one of these it gave a message over a hook's. */
const HOST_PROVENANCE_KINDS: ReadonlySet<unknown> = new Set(["external_user", "inter_session", "internal_system"]);

/**
 * A user message the host marks as the owner's (`senderIsOwner`) whose text provenant reads as
 * partly someone else's (a document's text or a fetched page the host put into it) would be
 * promoted whole as the owner's words. Written with {@link NOT_THE_OWNERS_WORDS} instead (a
 * provenance the host cannot read is replaced). The host keeps a provenance of its own kinds it
 * gave the message over any a hook writes, so such a message is left as it is (undefined), as is
 * any message the host does not mark as the owner's.
 */
export function markedAsNotOwners<M>(message: M): M | undefined {
  if (!isRecord(message) || message.role !== "user") return undefined;
  if (!isRecord(message.__openclaw) || message.__openclaw.senderIsOwner !== true) return undefined;
  if (isRecord(message.provenance) && HOST_PROVENANCE_KINDS.has(message.provenance.kind)) return undefined;
  return { ...message, provenance: { ...NOT_THE_OWNERS_WORDS } };
}
