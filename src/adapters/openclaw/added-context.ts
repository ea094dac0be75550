import { INBOUND_MARKER, type ForeignText } from "./runtime-context.js";

/**
 * What other plugins add to a turn's prompt. OpenClaw 2026.9.6 hands the model the turn's message
 * as `[<time>] <the message's inbound context>\n\n<prepended>\n\n<message>\n\n<appended>`, the
 * middle parts joined from every plugin's `before_prompt_build` result (`prependContext`,
 * `appendContext`), and reports that prompt to `llm_input`. A memory plugin's recall of other
 * conversations (Active Memory), a standing intent, a third-party plugin's fetched context: the
 * guard judged none of it, and none is the sender's words, so it taints the turn `untrusted` (and,
 * never having been the message, vouches for nothing). The inbound context the host writes inline
 * is the one its runtime context carries, judged there (runtime-context.ts); this plugin's own
 * line (`own`, the signed message's id) is its own.
 */
export const ADDED_CONTEXT: ForeignText = {
  level: "untrusted",
  what: "context another plugin added to the message (what it recalls or fetches, not the sender's words)",
};

/** The time the host stamps a message with (`[Tue 2026-12-01 22:24 UTC] `: a date and a time of day in brackets). */
const TIMESTAMP = /^\[[^\]\n]{0,40}\d{4}-\d{2}-\d{2} \d{2}:\d{2}[^\]\n]{0,40}\] /;

/**
 * Whether `prompt`, as the model gets it, holds more than the message the host handed the plugin
 * hooks (`message`) and this plugin's own context (`own`). A prompt the message cannot be found in
 * counts as holding more: what it holds instead was not judged.
 */
export function addedContext(prompt: string, message: string, own: string | undefined): ForeignText | null {
  // The time goes before the message when the host stamps it; a message may begin like one itself.
  const clean = onlyMessage(prompt, message, own) || (TIMESTAMP.test(prompt) && onlyMessage(prompt.replace(TIMESTAMP, ""), message, own));
  return clean ? null : ADDED_CONTEXT;
}

/** Whether `text` is the host's inbound context, this plugin's own line and the message, and nothing else. */
function onlyMessage(text: string, message: string, own: string | undefined): boolean {
  let rest = text;
  // The host writes each block of inbound context on lines of its own, its values as JSON or on one
  // line, so no one's text in it can end a block early.
  while ((rest.split("\n", 1)[0] ?? "").endsWith(INBOUND_MARKER)) {
    const end = rest.indexOf("\n\n");
    rest = end < 0 ? "" : rest.slice(end + 2);
  }
  const at = rest.lastIndexOf(message);
  if (at < 0) return false;
  let before = rest.slice(0, at);
  if (own !== undefined && own !== "") before = before.replace(own, "");
  return `${before}${rest.slice(at + message.length)}`.trim() === "";
}

/**
 * What other plugins add to the system prompt: their `before_prompt_build` `prependSystemContext`
 * and `appendSystemContext` (OpenClaw 2026.9.6 fences each under a header of its own, before or
 * after its prompt), a `systemPrompt` that replaces the prompt, a context engine's
 * `systemPromptAddition` (put right after the cache boundary). None is OpenClaw's own text or a
 * file the guard judged (prompt-files.ts), and the model reads it as standing instructions.
 */
export const ADDED_SYSTEM_CONTEXT: ForeignText = {
  level: "untrusted",
  what: "text another plugin added to the system prompt (not OpenClaw's own)",
};

const CACHE_BOUNDARY = "\n<!-- OPENCLAW_CACHE_BOUNDARY -->\n";

/**
 * Whether `systemPrompt`, as OpenClaw reports a model request's to `llm_input`, holds text it did
 * not write. Its embedded runner builds the prompt as sections between marks of its own: `STABLE`,
 * then after the cache boundary `DYNAMIC`, then perhaps its notice of changed permissions
 * (`PERMISSION`, in its own words); text anywhere else is someone else's. Each section is read
 * from its opening mark to the first closing one (as OpenClaw itself finds them), so text that
 * imitates the marks can end a section early, never hide inside one. A prompt not in that shape
 * (replaced, or from a runtime that builds its prompt otherwise) cannot be told apart from added
 * text, and counts as added.
 */
export function addedSystemContext(systemPrompt: string): ForeignText | null {
  if (systemPrompt.trim() === "") return null;
  let rest: string | null = afterSection(systemPrompt, "STABLE");
  if (rest !== null && rest.startsWith(CACHE_BOUNDARY)) rest = afterSection(rest.slice(CACHE_BOUNDARY.length), "DYNAMIC");
  if (rest !== null && rest.trimStart().startsWith(opening("PERMISSION"))) {
    const notice = rest.trimStart();
    rest = afterSection(notice, "PERMISSION");
    if (rest !== null && !PERMISSION_NOTICE.test(notice.slice(0, notice.length - rest.length))) rest = null;
  }
  return rest !== null && rest.trim() === "" ? null : ADDED_SYSTEM_CONTEXT;
}

/** The one notice the host puts in its `PERMISSION` section (when the owner changes the workspace's permissions mid-run), with the section's marks. */
const PERMISSION_NOTICE =
  /^<!-- openclaw:attempt:PERMISSION -->\n## Permission change\nThe operator changed workspace permissions to [A-Za-z -]{1,40}\. Continue the current task with the updated tools and permissions\. Inspect interrupted actions before retrying; do not repeat completed actions\.\n<!-- \/openclaw:attempt:PERMISSION -->$/;

function opening(section: string): string {
  return `<!-- openclaw:attempt:${section} -->\n`;
}

/**
 * What follows the section `name` that `text` opens with, or null when it does not open with one
 * that closes, or holds another section's mark (text that imitates a section, swallowing the real
 * one up to a closing mark further on).
 */
function afterSection(text: string, name: string): string | null {
  if (!text.startsWith(opening(name))) return null;
  const closing = `\n<!-- /openclaw:attempt:${name} -->`;
  const end = text.indexOf(closing, opening(name).length - 1);
  if (end < 0 || /<!-- \/?openclaw:attempt:/.test(text.slice(opening(name).length, end))) return null;
  return text.slice(end + closing.length);
}
