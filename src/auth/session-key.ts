/**
 * RFC-002's per-turn session key, hardened: the key of the agent running this turn, derived from
 * what the gateway placed in the prompt. In order of preference:
 *  1. the `Agent 2 (target) session:` line of the system prompt's agent-to-agent block, when it
 *     names this agent;
 *  2. the conversation-info block that LEADS the most recent user message (a block further down
 *     is message text anyone could have typed), whose JSON must parse and whose `chat_id` must be
 *     a string `<channel>:<id>` of a channel with a derivation rule (Telegram).
 * Anything else gives null, and the caller falls back to its own notion of the session.
 */
export interface ContentPart {
  readonly type?: string;
  readonly text?: unknown;
}

export interface TurnMessage {
  readonly role: string;
  /** A string, or an array of content parts of which the text parts count; anything else is no text. */
  readonly content: unknown;
}

export interface TurnContext {
  readonly agentId: string;
  readonly systemPrompt: string;
  readonly messages: readonly TurnMessage[];
}

const A2A_HEADER = "Agent-to-agent message context:";
const TARGET_LINE = /^Agent 2 \(target\) session:[ \t]*(\S+?)\.?[ \t]*$/;
const REQUESTER_LINE = /^Agent 1 \(requester\) session:[ \t]*(\S+?)\.?[ \t]*$/;
export const SESSION_KEY_PATTERN = /^agent:[A-Za-z0-9_.+-]+(?::[A-Za-z0-9_.+-]+)+$/;

const INFO_LABELS = ["Conversation info (untrusted metadata):", "Conversation info: \u27e6openclaw:ctx\u27e7", "Conversation info:"];
const SENDER_LABEL = "Sender (untrusted metadata):";

export function deriveTurnSessionKey(ctx: TurnContext): string | null {
  const agentId = ctx.agentId.trim();
  if (!/^[A-Za-z0-9_.+-]+$/.test(agentId)) return null;
  const target = a2aLine(ctx.systemPrompt, TARGET_LINE);
  if (target !== null && target.startsWith(`agent:${agentId}:`)) return target;
  const text = latestUserText(ctx.messages);
  if (text === null) return null;
  const info = leadingBlock(text, INFO_LABELS);
  if (info === null) return null;
  const chatId = info.json["chat_id"];
  if (typeof chatId !== "string") return null;
  const rest = chatKey(chatId);
  return rest === null ? null : `agent:${agentId}:${rest}`;
}

/** The requester line of the system prompt's agent-to-agent block, when it holds a real key. */
export function a2aRequesterKey(systemPrompt: string): string | null {
  return a2aLine(systemPrompt, REQUESTER_LINE);
}

function a2aLine(systemPrompt: string, line: RegExp): string | null {
  const start = systemPrompt.indexOf(A2A_HEADER);
  if (start < 0) return null;
  const block = systemPrompt.slice(start + A2A_HEADER.length).split(/\r?\n/);
  for (const l of block.slice(1)) {
    if (l.trim() === "") break;
    const m = line.exec(l.trim());
    // Placeholders such as <TARGET_SESSION> fail the pattern and count as absent.
    if (m !== null) return SESSION_KEY_PATTERN.test(m[1] as string) ? (m[1] as string) : null;
  }
  return null;
}

function messageText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const texts = content
    .filter((p): p is ContentPart => typeof p === "object" && p !== null)
    .filter((p) => (p.type === undefined || p.type === "text") && typeof p.text === "string")
    .map((p) => p.text as string);
  return texts.join("\n");
}

/** The most recent user message, skipping one that is only a sender-metadata block. */
function latestUserText(messages: readonly TurnMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as TurnMessage;
    if (m.role !== "user") continue;
    const text = messageText(m.content);
    if (text === null) return null;
    const sender = leadingBlock(text, [SENDER_LABEL]);
    if (sender !== null && sender.rest.trim() === "") continue;
    return text;
  }
  return null;
}

interface LeadingBlock {
  readonly json: Readonly<Record<string, unknown>>;
  readonly rest: string;
}

/**
 * A metadata block at the very start of the text: label line, then fenced or bare JSON object.
 * A block that does not close or does not parse to an object is no block: its text is message text.
 */
function leadingBlock(text: string, labels: readonly string[]): LeadingBlock | null {
  const label = labels.find((l) => text.startsWith(l + "\n") || text.startsWith(l + "\r\n"));
  if (label === undefined) return null;
  const body = text.slice(label.length).replace(/^\r?\n/, "");
  const fence = /^```(?:json)?[ \t]*\r?\n/.exec(body);
  let raw: string;
  let rest: string;
  if (fence !== null) {
    const close = body.indexOf("\n```", fence[0].length - 1);
    if (close < 0) return null;
    raw = body.slice(fence[0].length, close);
    rest = body.slice(close + 4);
  } else {
    const end = jsonObjectEnd(body);
    if (end < 0) return null;
    raw = body.slice(0, end);
    rest = body.slice(end);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  return typeof json === "object" && json !== null && !Array.isArray(json) ? { json: json as Record<string, unknown>, rest } : null;
}

/** End offset of the balanced JSON object the text starts with, or -1. */
function jsonObjectEnd(text: string): number {
  if (!text.startsWith("{")) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** `telegram:<id>` → `telegram:direct:<id>`, `telegram:supergroup:<id>` or `telegram:group:<id>`. */
function chatKey(chatId: string): string | null {
  const m = /^([a-z0-9_-]+):(-?[0-9]+)$/.exec(chatId);
  if (m === null) return null;
  const [, channel, id] = m as unknown as [string, string, string];
  if (channel !== "telegram") return null;
  if (/^[1-9][0-9]*$/.test(id)) return `telegram:direct:${id}`;
  if (id.startsWith("-100")) {
    const rest = id.slice(4);
    // rest is digits (the pattern above); none, or only zeros, names no chat.
    return /^0*$/.test(rest) ? null : `telegram:supergroup:${rest}`;
  }
  if (/^-[1-9][0-9]*$/.test(id)) return `telegram:group:${id.slice(1)}`;
  return null;
}
