import { SessionTranscript } from "./session-transcript.js";

/**
 * Whose words ride into a turn beside its message. OpenClaw hands the model, with every request of
 * a turn, a runtime context the plugin's turn hooks never see: a history entry of `customType:
 * "openclaw.runtime-context"` whose fragments (`details.fragments`, each `{kind, text}`) hold
 *
 * - the inbound context of the message: its metadata, and in a group the group's name and the
 *   messages other members wrote since the bot last spoke (with the default `requireMention`,
 *   their messages start no turn of their own, so no earlier turn was tainted by them), a quoted
 *   or forwarded message, a thread's history;
 * - events queued for the session (`System: [time] …` lines: a webhook's `/hooks/wake` text with
 *   `mode: "next-heartbeat"`, a paired device's notifications, another session's delivery notes);
 * - the host's snapshots of the session's own state (its background commands, its sub-agents, and
 *   the results of sub-agents still waiting to be delivered), a background task's result, an MCP
 *   app's context.
 *
 * A turn is the owner's only as far as all of that is. Each fragment is a separate object, so its
 * kind is read from its first line and someone's text inside one cannot pass for a fragment of
 * another kind; every fragment is allowed only in the shapes the host writes for the owner's own
 * words or its own state, and anything else is someone else's text: what other members of a group
 * or a forwarded message's author wrote makes the turn `external`, anything unrecognised
 * `untrusted`.
 */
export interface ForeignText {
  readonly level: "external" | "untrusted";
  /** What it is, for the taint's reason (never more than a short quote). */
  readonly what: string;
  /** The turn's message itself is this text (a forwarded message), not the owner's words. */
  readonly ofMessage?: true;
  /**
   * The chat lines it is, where it is lines of a chat window the host shows again with later
   * turns: once they have tainted the session, they are its history, and tell nothing new then.
   */
  readonly lines?: readonly string[];
}

const RUNTIME_CONTEXT = "openclaw.runtime-context";
/** The host's mark on every header of the inbound context it writes (`⟦openclaw:ctx⟧`). */
export const INBOUND_MARKER = " \u27e6openclaw:ctx\u27e7";

/**
 * The someone-else's text in the runtime context of the model request `llm_input` reports: the
 * runtime-context entry at the end of its history (the current request's; one an earlier turn
 * left behind, with a conversation message after it, belonged to that turn). `group`: the turn
 * came from a group chat, where a quoted or earlier message may be anyone's.
 */
export function foreignRuntimeContext(historyMessages: readonly unknown[], group: boolean): ForeignText[] {
  const entry = currentRuntimeContext(historyMessages);
  if (entry === undefined) return [];
  const transcript = new SessionTranscript(historyMessages);
  const fragments = (entry as { details?: { fragments?: unknown } }).details?.fragments;
  if (!Array.isArray(fragments)) {
    // Without fragments the text cannot be told apart: only the host's own notices pass.
    const content = (entry as { content?: unknown }).content;
    const text = typeof content === "string" ? content : "";
    const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "" && !line.startsWith("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT") && !line.startsWith("<<<END_OPENCLAW_INTERNAL_CONTEXT"));
    return lines.length === 0 ? [] : judgeFragment("conversation-data", lines.join("\n"), group, transcript, undefined);
  }
  const texts = fragments.map((f: unknown) => (f !== null && typeof f === "object" ? (f as { text?: unknown }).text : undefined));
  const reactor = senderReactionLabel(texts.filter((t): t is string => typeof t === "string"));
  return fragments.flatMap((fragment: unknown) => {
    const { kind, text } = fragment !== null && typeof fragment === "object" ? (fragment as { kind?: unknown; text?: unknown }) : {};
    if (typeof text !== "string") return [{ level: "untrusted", what: "a runtime-context fragment of no known shape" }];
    return judgeFragment(typeof kind === "string" ? kind : "", text, group, transcript, reactor);
  });
}

function currentRuntimeContext(historyMessages: readonly unknown[]): object | undefined {
  for (let i = historyMessages.length - 1; i >= 0; i--) {
    const entry = historyMessages[i];
    if (entry === null || typeof entry !== "object") continue;
    if ((entry as { customType?: unknown }).customType === RUNTIME_CONTEXT) return entry;
    const role = (entry as { role?: unknown }).role;
    if (typeof role === "string" && role !== "custom") return undefined;
  }
  return undefined;
}

/** A background task's result in the host's older carrier, which it files as an instruction. */
const TASK_COMPLETION = "[Internal task completion event]";

function judgeFragment(kind: string, text: string, group: boolean, transcript: SessionTranscript, reactor: string | undefined): ForeignText[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  // The host's own instructions (how to deliver, how to treat a room event), except the older
  // carrier of a background task's result, which is filed as one.
  if (kind === "runtime-instruction") return trimmed.includes(TASK_COMPLETION) ? [{ level: "untrusted", what: "a background task's result" }] : [];
  const firstLine = trimmed.split("\n", 1)[0] ?? "";
  if (firstLine.startsWith(SYSTEM_LINE)) {
    const foreign = foreignSystemLines(trimmed, group ? undefined : reactor);
    return foreign.length === 0 ? [] : [{ level: "untrusted", what: `events queued into this turn from elsewhere (${foreign.length} line${foreign.length === 1 ? "" : "s"}: ${quote(foreign[0] ?? "")})` }];
  }
  if (OWN_STATE_HEADERS.has(firstLine)) {
    return trimmed.split("\n").includes(CHILD_RESULTS) ? [{ level: "untrusted", what: "a sub-agent's result waiting to be delivered" }] : [];
  }
  if (firstLine.startsWith(INTER_SESSION)) return [];
  if (firstLine === TASK_COMPLETION) return [{ level: "untrusted", what: "a background task's result" }];
  if (isInboundContext(trimmed)) return judgeInboundContext(trimmed, group, transcript);
  return [{ level: "untrusted", what: `runtime context the host does not write for the owner (${quote(firstLine)})` }];
}

// --- queued events -------------------------------------------------------------------------------

const SYSTEM_LINE = "System: ";
/** An event's first line carries its time: `[2026-11-26 08:00:00 UTC] `. */
const TIMESTAMP = /^\[[^\]\n]{1,64}\] /;
const MODEL_LABEL = "[A-Za-z0-9._:/@-]{1,128}";
/**
 * The mode-switch notices OpenClaw queues itself, whose words leave no room for anyone else's.
 * The host names no event's source and an event's text may span lines (each written as its own
 * `System:` line), so each line is judged alone.
 */
const HOST_NOTICES: readonly RegExp[] = [
  new RegExp(`^Model switched to ${MODEL_LABEL}( \\(${MODEL_LABEL}\\))?\\.$`),
  /^Fast mode (enabled|disabled|set to auto)\.$/,
  /^Elevated (FULL - exec runs on host with auto-approval|ASK - exec runs on host; approvals may still apply|OFF - exec stays in sandbox)\.$/,
  /^Reasoning (STREAM - emit live <think>|ON - include <think>|OFF - hide <think>)\.$/,
];

/**
 * OpenClaw's Telegram channel queues a reaction to one of the bot's messages (its default
 * `reactionNotifications: "own"`) as `Telegram reaction added: <emoji> by <reactor> on msg <id>`.
 * The reactor's name is the one text in it that anyone chooses; a reaction by the turn's own sender
 * in a direct chat (the owner's 👍 to the agent's reply) says nothing the owner did not.
 */
const REACTION_NOTICE = /^Telegram reaction added: ([^\s\x00-\x7f]{1,16}) by (.+) on msg (\d{1,20})$/;

/**
 * The lines of a queued-events fragment that are not the host's own notices (every line is one).
 * `reactor`: the label the channel gives the turn's sender in a reaction notice; a reaction notice
 * naming anyone else, or given with no sender, is someone else's line.
 */
export function foreignSystemLines(text: string, reactor?: string): string[] {
  return text.split(/\r?\n/).filter((line) => {
    if (!line.startsWith(SYSTEM_LINE)) return true;
    const words = line.slice(SYSTEM_LINE.length).replace(TIMESTAMP, "");
    if (reactor !== undefined && REACTION_NOTICE.exec(words)?.[2] === reactor) return false;
    return !HOST_NOTICES.some((notice) => notice.test(words));
  });
}

// --- the session's own state ---------------------------------------------------------------------

/**
 * The host's snapshots of what this session itself started: its background commands, its
 * sub-agents (the tasks it gave them), media it asked for. A sub-agent's result waiting to be
 * delivered is the sub-agent's words, read from whatever it read.
 */
const OWN_STATE_HEADERS: ReadonlySet<string> = new Set([
  "Active exec sessions:",
  "## Active Subagents",
  "## Recently Completed Subagents",
  "## Child results awaiting delivery",
  "## Media Generation Tasks",
  "## Approved executables",
]);
const CHILD_RESULTS = "## Child results awaiting delivery";
/** Another session's message names its source; the turn's origin already classifies it. */
const INTER_SESSION = "[Inter-session message]";

// --- the message's inbound context ---------------------------------------------------------------

/** The metadata of the turn's own message and sender. Any other key is the group's or someone else's. */
const OWN_MESSAGE_KEYS: ReadonlySet<string> = new Set([
  "chat_id",
  "message_id",
  "reply_to_id",
  "sender",
  "timestamp",
  "source_modality",
  "inbound_event_kind",
  "topic_id",
  "is_forum",
  "is_group_chat",
  "was_mentioned",
  "explicitly_mentioned_bot",
  "mentioned_user_ids",
  "mentioned_subteam_ids",
  "implicit_mention_kinds",
  "mention_source",
  "history_count",
  "history_truncated",
]);

/**
 * Headers of the inbound context that show other messages of the conversation: the message the
 * owner replied to, a thread's first message, earlier messages. In a group any member may have
 * written them. In a direct chat they are the owner's and the bot's. There the message the owner
 * replied to (and a reply chain, a thread's first message) counts only if this session's
 * transcript holds it (see SessionTranscript): it may be a bot message from another session or an
 * earlier one, which the owner's reply brings in.
 */
const REPLIED_TO_HEADERS: readonly string[] = ["Reply target of current user message:", "Reply chain of current user message (nearest first):", "Thread starter:"];
const CONVERSATION_HEADERS: readonly string[] = [...REPLIED_TO_HEADERS, "Chat history since last reply:", "Recent chat history:"];
/** How a chat window marks the message replied to, before its sender. */
const REPLY_TARGET = "[reply target]";
const CONVERSATION_INFO = "Conversation info:";
const ACTIVE_GOAL = "Active goal: ";
const CURRENT_MESSAGE = "Current message:";
const THREAD_STARTER_NOTE = "[Thread starter - for context]";
const THREAD_NOTES = ["[Thread history - for context]", THREAD_STARTER_NOTE];

/** The inbound context: blocks the host separates with a blank line, each under a marked header. */
function isInboundContext(text: string): boolean {
  const first = text.split("\n", 1)[0] ?? "";
  return first.endsWith(INBOUND_MARKER) || first.startsWith(ACTIVE_GOAL) || first === CURRENT_MESSAGE || THREAD_NOTES.includes(first);
}

/**
 * Its blocks, each judged. The host writes every value in a block as JSON or on one line with its
 * white space collapsed, so no one's text can open a block of its own.
 */
function judgeInboundContext(text: string, groupTurn: boolean, transcript: SessionTranscript): ForeignText[] {
  const blocks = text.split(/\n{2,}/);
  const group = groupTurn || blocks.some((block) => block.startsWith(CONVERSATION_INFO + INBOUND_MARKER) && /"is_group_chat":true[,}]/.test(block));
  const owner = ownerName(blocks);
  return blocks.flatMap((block): ForeignText[] => {
    const lines = block.split("\n");
    const first = lines[0] ?? "";
    if (first.startsWith(ACTIVE_GOAL) && lines.length === 1) return []; // the session's own goal
    if (first === CURRENT_MESSAGE || THREAD_NOTES.includes(first)) {
      if (group) return [{ level: "external", what: "a message another member of the group wrote, quoted in this turn" }];
      if (first === CURRENT_MESSAGE) return unheldQuote(lines.slice(1), transcript);
      return first === THREAD_STARTER_NOTE ? unheldReplyTarget(lines.slice(1), transcript, () => true) : [];
    }
    if (!first.endsWith(INBOUND_MARKER)) return [{ level: "untrusted", what: `inbound context of no known shape (${quote(first)})` }];
    const header = first.slice(0, -INBOUND_MARKER.length);
    if (header === CONVERSATION_INFO) return judgeConversationInfo(lines.slice(1).join("\n"));
    if (header === "Forwarded message context:") return [{ level: "external", what: "a forwarded message, which someone else wrote", ofMessage: true }];
    const chatWindow = isChatWindow(header, lines);
    if (CONVERSATION_HEADERS.includes(header) || chatWindow) {
      if (group) return [{ level: "external", what: `messages other members of the group wrote (${quote(header)})` }];
      const body = lines.slice(1);
      if (chatWindow) return [...unheldReplyTarget(body, transcript, (details) => details.includes(REPLY_TARGET)), ...unheldChatLines(body, transcript, owner)];
      return REPLIED_TO_HEADERS.includes(header) ? unheldBodies(body.join("\n"), transcript) : [];
    }
    return [{ level: "external", what: `context the channel added to the message (${quote(header)})` }];
  });
}

/** What a direct chat's context shows that this session's transcript does not hold: a message entering the session now. */
const UNHELD: ForeignText = {
  level: "untrusted",
  what: "a message the owner replied to that this session's transcript does not hold (one the agent sent from another session or an earlier one, or text this session never saw)",
};

/**
 * Chat lines (`#id time [reply target] sender: text`, or `sender: text` in a thread's notes) that
 * `checked` picks by what stands before the first `: `: the text after it must be held.
 */
function unheldReplyTarget(lines: readonly string[], transcript: SessionTranscript, checked: (details: string) => boolean): ForeignText[] {
  const held = lines.every((line) => {
    const { details, text } = chatLine(line);
    return !checked(details) || (text !== undefined && transcript.holds(text));
  });
  return held ? [] : [UNHELD];
}

/** A chat line's parts: what stands before its first `: ` (id, time, marks, sender), and the message's text after it, if it has any. */
function chatLine(line: string): { readonly details: string; readonly text: string | undefined } {
  const colon = line.indexOf(": ");
  return colon < 0 ? { details: line, text: undefined } : { details: line.slice(0, colon), text: line.slice(colon + 2) };
}

/**
 * The lines of a direct chat's window that are neither the owner's nor held by the history: the
 * bot's messages this session did not write. A cron job's best-effort delivery to the owner is
 * one: OpenClaw files a copy in the owner's transcript that it never hands the model back, and
 * shows it in the chat window of the owner's next message (a `#session:` line); a window the
 * channel selects when the owner replies shows it as the channel recorded it. So are the host's
 * own notices there (an approval asked or answered, a command's reply): no transcript holds them.
 * The owner's lines are the owner's words, held or not (the host may have added to the message
 * it handed the model); which they are, the host says by the sender label: `User` in a line it
 * takes from the transcript (`#session:` ids), the sender's name (ownerName) in the channel's.
 */
function unheldChatLines(lines: readonly string[], transcript: SessionTranscript, owner: string | undefined): ForeignText[] {
  const unheld = lines.filter((line) => {
    const { details, text } = chatLine(line);
    // The message replied to enters with each reply, and is judged as such (unheldReplyTarget).
    if (details.includes(REPLY_TARGET)) return false;
    if (text === undefined) return true;
    const label = line.startsWith(TRANSCRIPT_ENTRY) ? TRANSCRIPT_OWNER_LABEL : owner;
    return !(label !== undefined && details.endsWith(` ${label}`)) && !transcript.holds(text);
  });
  const [first] = unheld;
  if (first === undefined) return [];
  return [{ level: "untrusted", what: `a message in the chat window that this session's transcript does not hold (a delivery from another session, a cron job's, an earlier session's, or the host's notice): ${quote(first)}`, lines: unheld }];
}

/**
 * How the Telegram channel labels the turn's sender in a reaction notice, built as it builds it from
 * the conversation info's sender (`name (@username)`, the name or `@username` alone, else `id:<id>`).
 */
function senderReactionLabel(fragments: readonly string[]): string | undefined {
  const sender = conversationSender(fragments.flatMap((text) => text.trim().split(/\n{2,}/)));
  if (sender === undefined) return undefined;
  const field = (key: string): string | undefined => {
    const v = sender[key];
    return typeof v === "string" && v !== "" ? v : undefined;
  };
  const [name, username, id] = [field("name"), field("username"), field("id")];
  if (name !== undefined) return username !== undefined ? `${name} (@${username})` : name;
  if (username !== undefined) return `@${username}`;
  return id !== undefined ? `id:${id}` : undefined;
}

/** The sender's name as the conversation info gives it: how the channel's window labels the owner's lines. */
function ownerName(blocks: readonly string[]): string | undefined {
  const name = conversationSender(blocks)?.name;
  return typeof name === "string" && name.trim() !== "" ? name : undefined;
}

/** The sender object of the conversation info among the inbound context's blocks, if it has one. */
function conversationSender(blocks: readonly string[]): Readonly<Record<string, unknown>> | undefined {
  const info = blocks.find((block) => block.startsWith(CONVERSATION_INFO + INBOUND_MARKER));
  const value = info === undefined ? undefined : fencedJson(info.split("\n").slice(1).join("\n"));
  const sender = value !== null && typeof value === "object" ? (value as { sender?: unknown }).sender : undefined;
  return sender !== null && typeof sender === "object" ? (sender as Record<string, unknown>) : undefined;
}
/** The id the host gives a chat-window line it takes from the session's transcript, and its label for the owner's. */
const TRANSCRIPT_ENTRY = "#session:";
const TRANSCRIPT_OWNER_LABEL = "User";

/** The host's quote of the message replied to: `[Replying to: "<text>"]`, then the message's own `#id:`. */
function unheldQuote(lines: readonly string[], transcript: SessionTranscript): ForeignText[] {
  const held = lines.every((line) => {
    if (/^#[^\s:]*:$/.test(line)) return true;
    const quoted = /^\[Replying to: (".*")\]$/.exec(line)?.[1];
    const text = quoted === undefined ? undefined : parsedString(quoted);
    return text !== undefined && transcript.holds(text);
  });
  return held ? [] : [UNHELD];
}

/** A fenced JSON block (the message replied to, a reply chain, a thread's first message): every `body` in it. */
function unheldBodies(body: string, transcript: SessionTranscript): ForeignText[] {
  const value = fencedJson(body);
  const entries = Array.isArray(value) ? value : [value];
  const held = entries.every((entry: unknown) => {
    if (entry === null || typeof entry !== "object") return false;
    const text = (entry as { body?: unknown }).body;
    return text === undefined || (typeof text === "string" && transcript.holds(text));
  });
  return held ? [] : [UNHELD];
}

/** The value of a block the host writes as fenced JSON (```json … ```), or undefined for any other shape. */
function fencedJson(body: string): unknown {
  const json = /^```json\n([\s\S]*)\n```$/.exec(body)?.[1];
  return json === undefined ? undefined : parsedJson(json);
}

function parsedString(json: string): string | undefined {
  const value = parsedJson(json);
  return typeof value === "string" ? value : undefined;
}

function parsedJson(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A chat window a channel selected for the message: lines of `#id time sender: text` under a
 * header of its own. (The channel's free-form prompt context, `Context:`, is not one.)
 */
function isChatWindow(header: string, lines: readonly string[]): boolean {
  return header !== "Context:" && header.endsWith(":") && lines.length > 1 && lines.slice(1).every((line) => line.startsWith("#"));
}

/**
 * The message's own metadata: keys only the host writes for the sender, and what the message was
 * made from. A recording other than a voice note the sender recorded in the chat (`voice`) is an
 * audio file, anyone's (a voicemail, a call someone taped): OpenClaw's transcript of it is the
 * message, and it is not the sender's words.
 */
function judgeConversationInfo(body: string): ForeignText[] {
  const info = fencedJson(body);
  if (info === null || typeof info !== "object" || Array.isArray(info)) return [{ level: "untrusted", what: "conversation info of no known shape" }];
  const others = Object.keys(info).filter((key) => !OWN_MESSAGE_KEYS.has(key));
  const found: ForeignText[] = others.length === 0 ? [] : [{ level: "external", what: `names the group's members give it (${others.join(", ")})` }];
  if ((info as { source_modality?: unknown }).source_modality === RECORDING) found.push(SOMEONES_RECORDING);
  return found;
}

/** What the host says a message made from an audio file is (`source_modality`); a voice note the sender recorded is `voice`. */
const RECORDING = "audio";
const SOMEONES_RECORDING: ForeignText = {
  level: "untrusted",
  what: "an audio recording sent with the message, whose transcript OpenClaw made the message (anyone's recording, not the sender's words; a voice note recorded in the chat is)",
  ofMessage: true,
};

function quote(text: string): string {
  return JSON.stringify(text.slice(0, 80));
}
