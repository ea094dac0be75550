import type { AgentContext, InputProvenance } from "./sdk-types.js";
import { originFromAgentContext, withHostOwnerVerdict } from "./turn-origin.js";

/**
 * A user message OpenClaw writes into a session while a turn of it is running. Its default queue
 * mode (`messages.queue.mode: "steer"`) hands a message that arrives mid-run to the running turn,
 * between two model calls, with no turn hook of its own: a sub-agent's result
 * (`subagent_announce`, steered into its parent's turn when that turn is still busy), another
 * session's message, another sender's chat message, the owner's own second message. The model
 * reads it as part of the turn, so the turn is the owner's only as far as it is.
 */
export interface SteeredMessage {
  /** The owner's own words, as the host says (its owner bit) or configuration proves (`ownerIds`). */
  readonly owner: boolean;
  /** Who it comes from, for the taint's reason. */
  readonly from: string;
  /** Its text blocks, joined (for what the host may have put into an owner's message). */
  readonly text: string;
  /** It carries a block other than text (an image): what it shows is whoever made it. */
  readonly media: boolean;
}

/**
 * Reads a message `before_message_write` is given: null unless it is a user message. Who wrote it
 * is read from what the host attaches when it writes it (its `provenance`, and the sender metadata
 * of a channel message in `__openclaw`), with the rules a turn's own message is classified by
 * (turn-origin.ts): another session's message and a system event someone else wrote are never the
 * owner's, whatever owner bit comes with them; a channel message is the owner's when the host says
 * so. A message that says nothing of its sender is not the owner's.
 */
export function steeredMessage(message: unknown, ownerIds: readonly string[]): SteeredMessage | null {
  const text = userMessageText(message);
  if (text === null) return null;
  const { content, provenance, __openclaw: meta } = fields(message);
  const { senderId, senderIsOwner } = fields(meta);
  const sender = typeof senderId === "string" ? senderId : undefined;
  const ctx: AgentContext = { ...(sender !== undefined ? { senderId: sender } : {}), ...inputProvenance(provenance) };
  const hostSaysOwner = typeof senderIsOwner === "boolean" ? senderIsOwner : undefined;
  const origin = withHostOwnerVerdict(originFromAgentContext(ctx, ownerIds, null, text), hostSaysOwner, undefined);
  const media = Array.isArray(content) && content.some((block: unknown) => fields(block).type !== "text");
  return { owner: origin.isOwner === true, from: sourceOf(ctx.inputProvenance, sender), text, media };
}

/** A user message's text (its text blocks joined), or null for any other message. */
export function userMessageText(message: unknown): string | null {
  return messageRole(message) === "user" ? textOf(fields(message).content) : null;
}

/** A transcript message's role (`user`, `assistant`, `toolResult`, ...), or undefined for anything else. */
export function messageRole(message: unknown): unknown {
  return fields(message).role;
}

/** Who a message comes from, in words, for the taint's reason (an id is shown up to 200 characters). */
function sourceOf(provenance: InputProvenance | undefined, senderId: string | undefined): string {
  const name = (id: string) => JSON.stringify(id.slice(0, 200));
  if (provenance?.kind === "inter_session") {
    return `another session's message (${provenance.sourceTool ?? "unnamed tool"}, from ${name(provenance.sourceSessionKey ?? provenance.originSessionId ?? "an unnamed session")})`;
  }
  if (provenance?.kind === "internal_system") return `a system event (${provenance.sourceTool ?? "unnamed source"})`;
  return senderId !== undefined ? `a message from sender ${name(senderId)}` : "a message that names no sender";
}

/** The host's provenance of the kinds that say a message is not a person's on a channel (any other is read as none). */
function inputProvenance(value: unknown): { inputProvenance: InputProvenance } | Record<string, never> {
  const found = fields(value);
  if (found.kind !== "inter_session" && found.kind !== "internal_system") return {};
  const field = (name: string) => (typeof found[name] === "string" ? { [name]: found[name] as string } : {});
  return { inputProvenance: { kind: found.kind, ...field("originSessionId"), ...field("sourceSessionKey"), ...field("sourceTool") } };
}

/** An object's own fields, or none for anything else. */
function fields(value: unknown): Readonly<Record<string, unknown>> {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

/** A message's text: a string, or its text blocks joined. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.flatMap((block: unknown) => {
    const { type, text } = fields(block);
    return type === "text" && typeof text === "string" && text !== "" ? [text] : [];
  }).join("\n");
}
