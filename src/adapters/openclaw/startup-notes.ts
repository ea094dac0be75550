import type { ForeignText } from "./runtime-context.js";

/**
 * OpenClaw 2026.9.6's startup context: when a bare session reset goes on to a turn (`/reset soft`),
 * the host puts the recent daily notes (today's and yesterday's `memory/<date>.md` and
 * `memory/<date>-<slug>.md`) into the turn's message, after a header of its own, each note in a
 * quoted block: `[Untrusted daily memory: <path>]`, `BEGIN_QUOTED_NOTES`, a fenced text block,
 * `END_QUOTED_NOTES`. Earlier sessions wrote those notes, and OpenClaw's session memory (which its
 * onboarding turns on) writes one at every `/new` and reset: the end of the conversation, the
 * model's replies included, and they repeat what it read. The guard did not see that write, and the
 * host itself calls the notes untrusted: they taint the turn `untrusted`, and their words are not
 * the owner's, so they vouch for no call.
 */
const HEADER = "[Startup context loaded by runtime]";
/**
 * The end of a quoted note. The host escapes every three backticks inside a note, so no note can
 * spell it; the last one in the message ends the last note.
 */
const NOTE_END = "\n```\nEND_QUOTED_NOTES";

export const STARTUP_NOTES: ForeignText = {
  level: "untrusted",
  what: "the daily notes OpenClaw put in the message at a session's reset (earlier sessions wrote them, the model's replies to what it read among them)",
};

/**
 * A message without the startup context, and whether it held one. Everything from the header to
 * the end of the last note is taken out; a header with no note end after it takes the rest of the
 * message with it. Text the owner typed that looks like either only takes more of the message out.
 */
export function withoutStartupNotes(text: string): { readonly text: string; readonly found: ForeignText | null } {
  const start = text.indexOf(HEADER);
  if (start < 0) return { text, found: null };
  const lastEnd = text.lastIndexOf(NOTE_END);
  const end = lastEnd < start ? text.length : lastEnd + NOTE_END.length;
  return { text: text.slice(0, start) + text.slice(end), found: STARTUP_NOTES };
}
