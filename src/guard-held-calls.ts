import type { Decision } from "./core/decision.js";
import { displayBlock, displayText } from "./core/safe-display.js";
import type { Guard, ToolCallInput } from "./guard.js";
import { APPROVAL_STORE_VERSION, MAX_PENDING_ARGUMENTS, type ApprovalAnswer, type PendingApproval } from "./state/pending-approval-store.js";

/**
 * What every process that holds a call does with the shared pending-approvals store
 * (state/pending-approval-store.ts): write the record the owner answers from, and apply the answer
 * to the guard that holds the call. One implementation for every front end (MCP proxy, Claude Code
 * guard service, OpenClaw gateway), so a scope means the same everywhere.
 */

export interface HeldCallRecordInput {
  /** The guard's `confirm` decision for the call (it carries the code). */
  readonly decision: Decision;
  readonly frontEnd: string;
  /** Where within the front end: the MCP server's name, the Claude Code project, the gateway's agent. */
  readonly origin: string;
  readonly sessionId: string;
  readonly now: number;
  readonly expiresAt: number;
  /** Until when the holder waits for the answer, or null when only a retry applies it. */
  readonly waitingUntil: number | null;
  readonly pid?: number;
}

/** The exact call as the guard's reason shows it (`Call: ...`), else the tool's name. */
export function shownCall(decision: Decision): string {
  return decision.reason.split("\n").find((l) => l.startsWith("Call: "))?.slice("Call: ".length) ?? displayText(decision.tool);
}

/**
 * The call as the store keeps it: a call longer than the store's bound says how much of it is not
 * shown, in words at its end, so that an owner answering from the record (the console, `provenant
 * approvals`) cannot take the part shown for the whole call.
 */
function storedCall(shown: string, max: number): string {
  if (shown.length <= max) return shown;
  const note = (left: number) => ` [... the call goes on: ${left} more characters not shown]`;
  const kept = max - note(shown.length).length;
  return `${shown.slice(0, kept)}${note(shown.length - kept)}`;
}

/** The store's record of a held call, every string escaped for display and cut to the store's bounds. */
export function heldCallRecord(input: HeldCallRecordInput): PendingApproval {
  const d = input.decision;
  if (d.verdict !== "confirm" || d.code === undefined) throw new Error(`only a held call (confirm with a code) is recorded, not ${d.verdict}`);
  const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`);
  const line = (text: string, max: number): string => cut(displayText(text), max);
  return {
    version: APPROVAL_STORE_VERSION,
    code: d.code,
    frontEnd: line(input.frontEnd, 100),
    origin: line(input.origin, 200),
    sessionId: line(input.sessionId, 500),
    tool: line(d.tool, 500),
    call: storedCall(shownCall(d), 100_000),
    reason: cut(displayBlock(d.reason.split("\n")[0] ?? d.reason), 100_000),
    taint: d.taint,
    source: d.provenance === null ? null : line(`${d.provenance.label} (${d.provenance.trust})`, 10_000),
    arguments:
      d.arguments === undefined
        ? null
        : d.arguments.slice(0, MAX_PENDING_ARGUMENTS).map((a) => ({
            path: line(a.path, 1000),
            role: line(a.role, 500),
            value: line(a.value, 1000),
            determined: a.determined,
            finding: line(a.finding, 10_000),
            sources: a.sources.slice(0, 100).map((s) => ({ id: line(s.id, 500), kind: s.kind, tool: s.tool === null ? null : line(s.tool, 500), trust: s.trust, how: s.how })),
          })),
    createdAt: new Date(input.now).toISOString(),
    expiresAt: new Date(input.expiresAt).toISOString(),
    waitingUntil: input.waitingUntil === null ? null : new Date(input.waitingUntil).toISOString(),
    pid: input.pid ?? process.pid,
  };
}

export interface AppliedAnswer {
  /** The call's decision now: `allow` when the approval let it through, `block` when denied, else the held decision unchanged. */
  readonly decision: Decision;
  /** What happened, for the holder's log. */
  readonly message: string;
}

/**
 * Applies the owner's stored answer to the guard holding the call, and decides the call again.
 * The answer counts only for the code the guard issued for this call: the guard's own approval
 * check (code, tool, session, expiry, lockout) is the authority, so an answer file written by
 * anyone but the owner approves nothing the guard had not already held for this exact call.
 * - deny: the call is blocked (`owner-denied`);
 * - approve with scope `call`, `turn` or `minutes`: `Guard.approve` with that scope, as the owner's
 *   own `.approve` would; the call is then decided again (normally `allow`, spending a call grant).
 */
export function applyStoredAnswer(guard: Pick<Guard, "approve" | "beforeToolCall">, sessionId: string, call: ToolCallInput, held: Decision, answer: ApprovalAnswer): AppliedAnswer {
  const code = held.code;
  if (held.verdict !== "confirm" || code === undefined) return { decision: held, message: "the call is not held: no answer applies" };
  if (answer.code !== code) return { decision: held, message: `an answer for code ${answer.code} does not answer code ${code}` };
  const tool = displayText(held.tool);
  if (answer.verdict === "deny") {
    return { decision: { ...held, verdict: "block", rule: "owner-denied", reason: `the owner denied this call (${tool})` }, message: `the owner denied ${tool} (code ${code})` };
  }
  const scope = answer.scope ?? "call";
  const minutes = scope === "minutes" ? answer.minutes : null;
  const outcome = guard.approve(sessionId, held.tool, code, minutes, true, scope === "minutes" ? undefined : scope);
  if (!outcome.accepted) return { decision: held, message: `the owner's approval of code ${code} could not be applied: ${outcome.message}` };
  const decision = guard.beforeToolCall(sessionId, call);
  return { decision, message: `the owner approved ${tool} (code ${code}, ${scope === "minutes" ? `${minutes} minutes` : scope === "turn" ? "this turn" : "this call"}): ${outcome.message}` };
}
