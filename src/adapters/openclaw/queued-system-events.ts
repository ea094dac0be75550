/**
 * OpenClaw queues events for a session (a webhook's `/hooks/wake` text with `mode:
 * "next-heartbeat"`, a paired device's notifications, another session's delivery notes, a cron
 * job's summary) and hands them to the model with the owner's next turn as `System: [time] …`
 * lines, in the runtime context it attaches to every model request of that turn (a history entry of
 * `customType: "openclaw.runtime-context"` whose fragments hold the text), not in the prompt the
 * plugin's turn hooks see. The host names no event's source, and an event's text may span lines,
 * so each such line is judged alone: a line is the host's own notice only when it is
 * exactly one of the mode-switch notices OpenClaw writes, whose words leave no room for anyone
 * else's; any other line is someone else's text in the owner's turn.
 */
const SYSTEM_LINE = "System: ";
/** An event's first line carries its time: `[2026-11-26 08:00:00 UTC] `. */
const TIMESTAMP = /^\[[^\]\n]{1,64}\] /;
const MODEL_LABEL = "[A-Za-z0-9._:/@-]{1,128}";
const HOST_NOTICES: readonly RegExp[] = [
  new RegExp(`^Model switched to ${MODEL_LABEL}( \\(${MODEL_LABEL}\\))?\\.$`),
  /^Fast mode (enabled|disabled|set to auto)\.$/,
  /^Elevated (FULL - exec runs on host with auto-approval|ASK - exec runs on host; approvals may still apply|OFF - exec stays in sandbox)\.$/,
  /^Reasoning (STREAM - emit live <think>|ON - include <think>|OFF - hide <think>)\.$/,
];

/** The `System:` lines of a text that are not the host's own notices. */
export function foreignSystemLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith(SYSTEM_LINE))
    .filter((line) => {
      const text = line.slice(SYSTEM_LINE.length).replace(TIMESTAMP, "");
      return !HOST_NOTICES.some((notice) => notice.test(text));
    });
}

const RUNTIME_CONTEXT = "openclaw.runtime-context";

/**
 * The queued lines someone else wrote in the runtime context of the model request `llm_input`
 * reports: a runtime-context entry at the end of its history (the current request's; one an earlier
 * turn left behind, with a conversation message after it, carried events that were drained into
 * that turn), each fragment's text, or the entry's content when it has no fragments.
 */
export function queuedEventLines(historyMessages: readonly unknown[]): string[] {
  for (let i = historyMessages.length - 1; i >= 0; i--) {
    const entry = historyMessages[i];
    if (entry === null || typeof entry !== "object") continue;
    if ((entry as { customType?: unknown }).customType !== RUNTIME_CONTEXT) {
      if (typeof (entry as { role?: unknown }).role === "string" && (entry as { role: string }).role !== "custom") return [];
      continue;
    }
    const fragments = (entry as { details?: { fragments?: unknown } }).details?.fragments;
    const texts = Array.isArray(fragments)
      ? fragments.map((f: unknown) => (f !== null && typeof f === "object" && typeof (f as { text?: unknown }).text === "string" ? (f as { text: string }).text : ""))
      : [typeof (entry as { content?: unknown }).content === "string" ? ((entry as { content: string }).content) : ""];
    return texts.flatMap((text) => foreignSystemLines(text));
  }
  return [];
}
