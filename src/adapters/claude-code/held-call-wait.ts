import type { Decision } from "../../core/decision.js";
import { displayText } from "../../core/safe-display.js";
import { applyStoredAnswer, heldCallRecord } from "../../guard-held-calls.js";
import type { Guard, ToolCallInput } from "../../guard.js";
import { awaitAnswer } from "../../state/approval-answer-wait.js";
import { someoneIsWatching } from "../../state/console-presence.js";
import type { PendingApprovalStore } from "../../state/pending-approval-store.js";

/** Where and how long a held PreToolUse may wait for the owner's answer in the console. */
export interface HookWait {
  readonly store: PendingApprovalStore;
  /** The project the hook runs for, shown to the owner. */
  readonly origin: string;
  /** How long the hook process can still wait, from now (its own timeout less the time it needs to answer). */
  readonly budgetMs: number;
  /** The hook process is gone: stop waiting. */
  readonly signal: AbortSignal;
  /** Called with the wait's end once a wait starts, so the caller can keep its connection open that long. */
  readonly onWaiting: (until: number) => void;
  readonly log: (message: string) => void;
}

export type WaitingGuard = Pick<Guard, "approve" | "beforeToolCall" | "config">;

/**
 * A PreToolUse the guard holds, while a console shows the owner's approvals inbox: the call is
 * written to the shared store (frontEnd `claude-code`, the session, the exact call, its taint and
 * source, each argument's provenance) and the hook waits for the answer, at most
 * `approvalWaitSeconds`, the code's life, and what the hook's own timeout leaves.
 * - approve: the guard records the approval with its scope and decides the call again (`allow`:
 *   the hook then gives no opinion, and Claude Code's own permission rules still apply);
 * - deny: `block` (the hook denies);
 * - no answer, an abort, or a failure of the store: the held decision (the hook asks), as without
 *   a console.
 * The record is removed whichever way the wait ends: the call is decided here, never on a retry.
 */
export async function waitForOwner(guard: WaitingGuard, sessionId: string, call: ToolCallInput, held: Decision, wait: HookWait): Promise<Decision> {
  const code = held.code;
  if (code === undefined) return held;
  const now = Date.now();
  const until = now + Math.min(guard.config.approvalWaitSeconds * 1000, guard.config.approvalTtlSeconds * 1000, wait.budgetMs);
  if (until <= now || wait.signal.aborted || !someoneIsWatching(wait.store, now)) return held;
  try {
    wait.store.hold(heldCallRecord({ decision: held, frontEnd: "claude-code", origin: wait.origin, sessionId, now, expiresAt: now + guard.config.approvalTtlSeconds * 1000, waitingUntil: until }));
  } catch (error) {
    wait.log(`claude-code: could not record held call ${code} for the owner: ${error instanceof Error ? error.message : String(error)}`);
    return held;
  }
  try {
    wait.onWaiting(until);
    const answer = await awaitAnswer(wait.store, code, { deadlineMs: until, signal: wait.signal });
    if (answer === null) return held;
    const applied = applyStoredAnswer(guard, sessionId, call, held, answer);
    wait.log(`claude-code: ${applied.message}`);
    return applied.decision;
  } finally {
    try {
      wait.store.remove(code);
    } catch (error) {
      wait.log(`claude-code: could not remove held call ${code} from the store: ${displayText(error instanceof Error ? error.message : String(error))}`);
    }
  }
}
