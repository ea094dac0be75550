/**
 * The messages a session's own transcript holds: the owner's words and the agent's replies, as
 * OpenClaw hands them to the model in `llm_input`'s history.
 *
 * OpenClaw can show the model, beside the owner's new message, other messages of the chat: the one
 * the owner replied to, a window of the chat around it. In a direct chat those are the owner's and
 * the bot's, but not all the bot's messages are this session's: another session (a webhook's run,
 * a cron job) or an earlier session of the same chat may have sent them, after reading what this
 * session never read. A message this transcript holds entered the session before and was judged
 * then (the session's watermark covers it); any other enters it now.
 *
 * A shown message matches only a whole message of the transcript, never a part of one: a part can
 * say what the whole does not ("run rm -rf /tmp" out of "never run rm -rf /tmp").
 */
export class SessionTranscript {
  private texts: ReadonlySet<string> | null = null;

  constructor(private readonly history: readonly unknown[]) {}

  /**
   * True when `shown`, as OpenClaw writes a message into the context, is a whole message of the
   * transcript. OpenClaw may cut a long one to its head and tail around `…[omitted]…`, or to its
   * head before `…[truncated]`; the parts shown must then open (and close) one message.
   */
  holds(shown: string): boolean {
    const texts = this.messages();
    const kept = keptParts(shown);
    if (kept === null) return texts.has(normalized(shown));
    const head = normalized(kept.head);
    const tail = normalized(kept.tail);
    return [...texts].some((text) => text.length > head.length + tail.length && text.startsWith(head) && text.endsWith(tail));
  }

  private messages(): ReadonlySet<string> {
    if (this.texts !== null) return this.texts;
    const texts = new Set<string>();
    for (const entry of this.history) {
      if (entry === null || typeof entry !== "object") continue;
      const { role, content } = entry as { role?: unknown; content?: unknown };
      const text = textOf(content);
      if (text === null) continue;
      if (role === "assistant") texts.add(normalized(text));
      else if (role === "user") texts.add(normalized(ownerWords(text)));
    }
    texts.delete("");
    this.texts = texts;
    return texts;
  }
}

const OMITTED = "…[omitted]…";
const TRUNCATED = "…[truncated]";
/** What OpenClaw kept of a message it cut (a head with no tail before `…[truncated]`); null for a whole one. */
function keptParts(shown: string): { readonly head: string; readonly tail: string } | null {
  const omitted = shown.indexOf(OMITTED);
  if (omitted >= 0) return { head: shown.slice(0, omitted), tail: shown.slice(omitted + OMITTED.length) };
  return shown.endsWith(TRUNCATED) ? { head: shown.slice(0, -TRUNCATED.length), tail: "" } : null;
}

/** How OpenClaw opens the owner's message in the transcript: the time, then the sender's metadata. */
const STAMP = /^\[[^\]\n]{1,64}\] /;
const CONVERSATION_INFO = /^Conversation info: \u27e6openclaw:ctx\u27e7\n```json\n[^\n]*\n```\n\n/;
const RUNTIME_CONTEXT = "\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";

/** The owner's words in a user message of the transcript: without the time, the metadata and any runtime context after them. */
function ownerWords(text: string): string {
  let words = text.replace(STAMP, "");
  words = words.replace(CONVERSATION_INFO, "");
  const context = words.indexOf(RUNTIME_CONTEXT);
  return context >= 0 ? words.slice(0, context) : words;
}

function textOf(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const parts = content.flatMap((block: unknown) => {
    const { type, text } = block !== null && typeof block === "object" ? (block as { type?: unknown; text?: unknown }) : {};
    return type === "text" && typeof text === "string" ? [text] : [];
  });
  return parts.length === 0 ? null : parts.join("\n");
}

/**
 * A message as compared: without invisible characters (OpenClaw breaks code fences in the context
 * with a zero-width space), with white space collapsed (it collapses it), and without the marks
 * that only format it: markdown's emphasis and code where they pair up, as the agent wrote it, and
 * Telegram's formatting tags and character references, as the host sent it (a chat shows
 * `**Done**` and `<b>Done</b>` as "Done"). None of that changes what a message asks. A link keeps
 * its address on both sides: the same words can lead to another page.
 */
function normalized(text: string): string {
  return text
    .replace(/\p{Cf}/gu, "")
    .replace(/`{3,}[A-Za-z0-9_-]*/g, "")
    .replace(/\*\*([^*\n]+)\*\*|__([^_\n]+)__|`([^`\n]+)`/g, (_m, a?: string, b?: string, c?: string) => a ?? b ?? c ?? "")
    .replace(FORMAT_TAG, "")
    .replace(/&(lt|gt|quot|#39|amp);/g, (_m, name: string) => ({ lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" })[name] ?? "")
    .replace(/\s+/g, " ")
    .trim();
}

const FORMAT_TAG = /<\/?(?:b|strong|i|em|u|ins|s|strike|del|code|pre|tg-spoiler|blockquote)(?: class="[A-Za-z0-9 _-]*")?>/g;
