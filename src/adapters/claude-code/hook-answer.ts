import type { Decision } from "../../core/decision.js";
import { displayText } from "../../core/safe-display.js";

/**
 * What a hook process answers Claude Code: the JSON on stdout, the text on stderr, the exit code.
 * Exit 0 with JSON is a decision; exit 2 blocks (PreToolUse, UserPromptSubmit) with stderr as the
 * reason; any other code is a non-blocking error Claude Code shows in its log.
 */
export interface HookAnswer {
  readonly exitCode: 0 | 1 | 2;
  readonly stdout: string;
  readonly stderr: string;
}

export const NO_OPINION: HookAnswer = Object.freeze({ exitCode: 0, stdout: "", stderr: "" });

export type PermissionDecision = "allow" | "ask" | "deny";

/** The events whose answer is a permission decision. */
export type DecidedEvent = "PreToolUse" | "PreSkillShellCommand";

export function permissionAnswer(decision: PermissionDecision, reason: string, event: DecidedEvent = "PreToolUse"): HookAnswer {
  const out = { hookSpecificOutput: { hookEventName: event, permissionDecision: decision, permissionDecisionReason: reason } };
  return { exitCode: 0, stdout: `${JSON.stringify(out)}\n`, stderr: "" };
}

export function contextAnswer(event: "SessionStart" | "UserPromptSubmit" | "PostToolUse" | "PostToolUseFailure", context: string): HookAnswer {
  return { exitCode: 0, stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: context } })}\n`, stderr: "" };
}

/** A prompt that was an owner command to provenant: answered here, not sent to the model. */
export function promptBlockedAnswer(reason: string): HookAnswer {
  return { exitCode: 0, stdout: `${JSON.stringify({ decision: "block", reason })}\n`, stderr: "" };
}

export function errorAnswer(exitCode: 1 | 2, message: string): HookAnswer {
  return { exitCode, stdout: "", stderr: `provenant: ${message}\n` };
}

/** OpenClaw's approval-code lines: Claude Code's own permission prompt is the approval here. */
const CODE_LINES = /^(Approval code:|Approve |Blocked tools:)/;

/**
 * The guard's decision in Claude Code's terms. `allow` says nothing, so Claude Code's own
 * permission rules still apply (provenant only ever adds a question); `confirm` asks the user in
 * Claude Code's prompt with the guard's reason (the untrusted source, the call, each argument's
 * provenance); `block` denies.
 */
export function decisionAnswer(decision: Decision, event: DecidedEvent = "PreToolUse"): HookAnswer {
  if (decision.verdict === "allow") return NO_OPINION;
  const lines = decision.reason
    .split("\n")
    .filter((line) => !CODE_LINES.test(line))
    .map((line) => (decision.verdict === "confirm" ? line.replace(" is blocked by security policy (", " needs your approval (") : line));
  const reason = `provenant: ${lines.map(displayText).join("\n")}`;
  return permissionAnswer(decision.verdict === "confirm" ? "ask" : "deny", reason, event);
}
