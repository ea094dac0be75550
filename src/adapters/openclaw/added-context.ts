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
