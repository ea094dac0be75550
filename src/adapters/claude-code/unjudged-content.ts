import { failedHookAnswer } from "./claude-code-hooks.js";
import type { HookAnswer } from "./hook-answer.js";
import { toolNameOf, type HookEvent } from "./hook-event.js";
import { describeFailure } from "../../guard-fail-safe.js";
import { displayText } from "../../core/safe-display.js";
import { FileWatermarkStore } from "../../state/watermark-store.js";

/**
 * The events with which content enters the session's context: the instructions loaded at start, the
 * prompt and what it carries, a tool's result. When provenant fails on one of them (a configuration
 * file broken mid-session, a guard it could not open), Claude Code goes on with that content
 * unjudged; counting it as untrusted keeps the failure from leaving the session more trusted than
 * what it read.
 */
const CONTENT_EVENTS: ReadonlySet<string> = new Set(["SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PostToolUse", "PostToolUseFailure", "InstructionsLoaded", "DirectoryAdded"]);

export function bringsContent(eventName: string | null): boolean {
  return eventName !== null && CONTENT_EVENTS.has(eventName);
}

/** Why a session was raised to untrusted for content it could not judge. */
export function unjudgedReason(eventName: string, tool: string | null, error: unknown): string {
  const what = tool === null ? `what ${eventName} brought` : `the ${tool} result`;
  return displayText(`${what} could not be judged (${describeFailure(error)}): counted as untrusted`);
}

/**
 * Raises the session's persisted watermark to untrusted, straight in the project's state (the guard
 * itself may be what failed); the next event's guard starts from it. Returns why that failed too,
 * or null.
 */
export function taintUnjudged(projectDir: string, sessionId: string, reason: string): string | null {
  try {
    const store = new FileWatermarkStore(projectDir);
    try {
      store.escalate(sessionId, "untrusted", reason, "unjudged-content", new Date());
    } finally {
      store.close();
    }
    return null;
  } catch (error) {
    return describeFailure(error);
  }
}

/**
 * The answer for an event provenant failed on, after the content it brought is counted as
 * untrusted by `raise` (the session's watermark; returns why that failed too, or null). Other
 * events' answers are returned as they are.
 */
export function countUnjudged(
  answer: HookAnswer,
  event: { readonly hook_event_name: string; readonly session_id: string; readonly tool_name?: string },
  error: unknown,
  raise: (sessionId: string, reason: string) => string | null,
): HookAnswer {
  if (!bringsContent(event.hook_event_name)) return answer;
  const reason = unjudgedReason(event.hook_event_name, event.tool_name ?? null, error);
  const failed = raise(event.session_id, reason);
  const note = failed === null ? `provenant: ${reason}\n` : `provenant: ${reason}, but the session's state could not be raised either (${failed})\n`;
  return { ...answer, stderr: `${answer.stderr}${note}` };
}

/**
 * The answer when provenant failed on a hook's `input` (`event`: what it parsed to, if it did),
 * with the content a failed event brought counted as untrusted by `raise`.
 */
export function failedEventAnswer(input: string, event: HookEvent | undefined, error: unknown, raise: (event: HookEvent, reason: string) => string | null): HookAnswer {
  const answer = failedHookAnswer(event?.hook_event_name ?? null, event !== undefined && "tool_name" in event ? event.tool_name : toolNameOf(input), error);
  return event === undefined ? answer : countUnjudged(answer, event, error, (_session, reason) => raise(event, reason));
}
