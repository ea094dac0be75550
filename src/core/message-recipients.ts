/**
 * Whether a `message` call goes only to the owner, for the owner-DM exception. The rule reads
 * every field the host's `message` tool accepts (OpenClaw 2026.9.6: `target`, `targets`, the
 * legacy `to` / `channelId`, action aliases such as `chatId`, `userId`, a `channel` naming the
 * provider, an `accountId` choosing which bot account sends) and says yes only when every field
 * that names a recipient names the owner and no media field names a remote URL (which the host
 * would fetch: a request to that URL's server). A field it does not know, a value of a shape it does not
 * understand, or an action other than sending into a conversation means "not the owner": the call
 * then follows the taint policy like any other send, which at worst asks the owner.
 */

/** The turn a `message` call is made in. */
export interface MessageContext {
  /** `ownerIds` from the configuration: a send to one of these is to the owner from anywhere. */
  readonly ownerIds: readonly string[];
  readonly senderId: string | null;
  readonly senderIsOwner: boolean | null;
  /** The group the turn came from; null for a direct message. */
  readonly group: string | null;
  /** The turn's channel (telegram, discord, ...). */
  readonly provider: string | null;
}

/** Fields that name where a message goes; each value must name the owner. */
const RECIPIENT_FIELDS: ReadonlySet<string> = new Set([
  "target",
  "targets",
  "to",
  "recipient",
  "recipients",
  "channelId",
  "channelIds",
  "chatId",
  "chatGuid",
  "chatIdentifier",
  "userId",
  "memberId",
  "participant",
  "groupId",
  "guildId",
  "openId",
  "unionId",
]);

/**
 * Fields that shape what is sent, never where: content, media, formatting and the position inside
 * the conversation the recipients already fix (`replyTo`, `threadId`, `messageId`).
 */
const CONTENT_FIELDS: ReadonlySet<string> = new Set([
  "action",
  "message",
  "text",
  "caption",
  "media",
  "mediaUrl",
  "mediaUrls",
  "media_urls",
  "filename",
  "filePath",
  "fileUrl",
  "path",
  "buffer",
  "base64",
  "image",
  "contentType",
  "mimeType",
  "attachments",
  "replyTo",
  "threadId",
  "messageId",
  "message_id",
  "quoteText",
  "silent",
  "gifPlayback",
  "forceDocument",
  "asDocument",
  "asVoice",
  "voiceText",
  "voiceProvider",
  "voiceId",
  "effectId",
  "effect",
  "emoji",
  "remove",
  "presentation",
  "interactive",
  "bestEffort",
  "dryRun",
  "idempotencyKey",
  "title",
  "executionTitle",
]);

/**
 * Content fields the host may load as media: a local path, or a URL it (or the channel's servers)
 * fetches. A fetch is a request to whoever serves the URL, carrying whatever the URL holds, so a
 * remote URL here is not "only to the owner".
 */
const MEDIA_FIELDS: ReadonlySet<string> = new Set([
  "media",
  "mediaUrl",
  "mediaUrls",
  "media_urls",
  "path",
  "filePath",
  "fileUrl",
  "image",
  "attachments",
  "presentation",
  "interactive",
]);

/**
 * Content fields that may carry controls the owner can press (buttons, select menus). A press
 * comes back into the conversation as a message from whoever pressed it, with the control's
 * command or value as its text (on Telegram, a command button's text reaches the model as the
 * owner's message, and OpenClaw's own `/approve <id> …` is applied as the owner's answer), while
 * the owner saw only the label. Controls the model wrote would put its words in the owner's mouth,
 * so a message carrying them is not "only to the owner".
 */
const CONTROL_FIELDS: ReadonlySet<string> = new Set(["presentation", "interactive"]);

/**
 * Whether a presentation holds a control. The host reads a string here as the JSON it spells (and
 * refuses the send when it is not JSON); strings inside it are text.
 */
function holdsControls(value: unknown): boolean {
  return controlsIn(typeof value === "string" ? parsedJson(value) : value, 0);
}

/** A control at any depth; nesting too deep to look through counts as one. */
function controlsIn(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (depth > 8) return true;
  // An array has neither key: its items are looked at below.
  const record = value as Record<string, unknown>;
  if (record["type"] === "buttons" || record["type"] === "select") return true;
  if (isPresent(record["buttons"]) || isPresent(record["options"])) return true;
  return Object.values(value).some((v) => controlsIn(v, depth + 1));
}

/** The value a JSON text spells, or undefined when it is not JSON. */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text.trim()) as unknown;
  } catch {
    return undefined;
  }
}

/** A URL with a scheme and an authority that is not a local file (`https://`, `ftp://`, `//host`...). */
const REMOTE_URL = /^\s*(?:(?!file:)[a-z][a-z0-9+.-]*:)?\/\//i;

/** Whether a value holds, at any depth, a string naming a remote URL. */
function namesRemoteUrl(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return REMOTE_URL.test(value);
  if (depth > 8 || value === null || typeof value !== "object") return false;
  return Object.values(value).some((v) => namesRemoteUrl(v, depth + 1));
}

/**
 * Actions that put something into a conversation the recipients name. Anything else (creating
 * channels, moderation, profile changes, reading other conversations) is not "talking to the owner".
 */
const SEND_ACTIONS: ReadonlySet<string> = new Set([
  "send",
  "broadcast",
  "reply",
  "sendWithEffect",
  "sendAttachment",
  "sticker",
  "react",
  "thread-reply",
]);

/** A recipient value as the host reads it: absent, a list of names, or not understood (null). */
function recipientNames(value: unknown): string[] | null {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return value.trim() === "" ? [] : [value.trim()];
  // A chat id the model wrote as a number names the same chat as its decimal spelling.
  if (typeof value === "number") return Number.isSafeInteger(value) ? [String(value)] : null;
  if (Array.isArray(value)) {
    const names: string[] = [];
    for (const item of value) {
      if (typeof item !== "string" && typeof item !== "number") return null;
      const inner = recipientNames(item);
      if (inner === null) return null;
      names.push(...inner);
    }
    return names;
  }
  return null;
}

function isPresent(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (typeof value === "string") return value.trim() !== "";
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/**
 * True when the call sends only to the owner: every recipient named is one of `ownerIds`, or the
 * verified owner's own id in their DM; with no recipient at all, the reply goes to the turn's own
 * conversation, which is the owner's only when the owner wrote in a DM.
 */
export function isMessageToOwner(params: Readonly<Record<string, unknown>>, context: MessageContext): boolean {
  const action = params["action"];
  if (action !== undefined && (typeof action !== "string" || !SEND_ACTIONS.has(action))) return false;
  const named: string[] = [];
  for (const key of Object.keys(params)) {
    const value = params[key];
    if (RECIPIENT_FIELDS.has(key)) {
      const names = recipientNames(value);
      if (names === null) return false;
      named.push(...names);
    } else if (key === "channel") {
      // Another provider's chat with the same id is somebody else's.
      if (!isPresent(value)) continue;
      if (typeof value !== "string" || context.provider === null) return false;
      if (value.trim().toLowerCase() !== context.provider.trim().toLowerCase()) return false;
    } else if (MEDIA_FIELDS.has(key) && namesRemoteUrl(value)) {
      // The host would fetch it: a request to the URL's server, not a message to the owner.
      return false;
    } else if (CONTROL_FIELDS.has(key) && holdsControls(value)) {
      return false;
    } else if (!CONTENT_FIELDS.has(key) && isPresent(value)) {
      // accountId, gatewayUrl, a plugin's own routing field: not understood, so not the owner.
      return false;
    }
  }
  const inOwnerDm = context.senderIsOwner === true && context.group === null;
  // A broadcast with no list goes wherever the host's defaults say: not known to be the owner.
  if (named.length === 0) return inOwnerDm && action !== "broadcast";
  return named.every(
    (name) => context.ownerIds.includes(name) || (inOwnerDm && context.senderId !== null && name === context.senderId),
  );
}
