import type { Decision, DecisionProvenance, Verdict } from "../../core/decision.js";
import type { TrustLevel } from "../../core/trust-levels.js";
import type { ReplayTrace } from "./replay-trace.js";
import type { SuitePolicy } from "./tool-policy-file.js";

/** The part of the guard a replay drives: exactly the hooks an agent framework calls. */
export interface ReplayGuard {
  beginTurn(input: {
    sessionId: string;
    sender: { id?: string; isOwner?: boolean };
    provider?: string;
    group?: string | null;
    spawnedBy?: string | null;
    text: string;
  }): unknown;
  beforeToolCall(sessionId: string, call: { id?: string; tool: string; params: Record<string, unknown> }): Decision;
  afterToolCall(sessionId: string, result: { id?: string; tool: string; output: unknown }): unknown;
  endTurn(sessionId: string): void;
}

/** One replayed call as the guard decided it: enough to recompute every figure from the JSON. */
export interface CallRecord {
  readonly id: string;
  readonly function: string;
  readonly origin: "user" | "injection";
  /** For recorded runs: the origin by function name alone, reported beside. */
  readonly originByFunctionName?: "user" | "injection";
  readonly args: Readonly<Record<string, unknown>>;
  readonly action: string;
  readonly sideEffect: boolean;
  readonly egress: boolean;
  readonly verdict: Verdict;
  readonly taint: TrustLevel;
  readonly rule: string;
  readonly reason: string;
  readonly provenance: DecisionProvenance | null;
  /** Whether the call ran: allowed, or asked for a call the owner wanted (the owner approves it). */
  readonly executed: boolean;
}

export interface TraceResult {
  readonly trace: ReplayTrace;
  readonly calls: readonly CallRecord[];
}

/**
 * Replays one trace through the guard as one owner turn. A call the guard allows runs and its
 * output enters the context. A call the guard asks about runs only when it is the owner's own
 * (the owner sees their request and approves that call alone; no approval code is issued to the
 * turn, so nothing else rides on it); an attacker's call that asks is refused and never runs.
 */
export function runTrace(guard: ReplayGuard, sessionId: string, trace: ReplayTrace, policy: SuitePolicy): TraceResult {
  guard.beginTurn({ sessionId, sender: { id: "owner", isOwner: true }, provider: "agentdojo", group: null, spawnedBy: null, text: trace.prompt });
  const calls: CallRecord[] = [];
  for (const call of trace.calls) {
    const entry = policy[call.function];
    const action = entry?.action ?? "trade";
    const decision = guard.beforeToolCall(sessionId, { id: call.id, tool: call.function, params: { ...call.args } });
    const executed = decision.verdict === "allow" || (decision.verdict === "confirm" && call.origin === "user");
    calls.push({
      id: call.id,
      function: call.function,
      origin: call.origin,
      ...(call.originByFunctionName === undefined ? {} : { originByFunctionName: call.originByFunctionName }),
      args: call.args,
      action,
      sideEffect: action !== "read",
      egress: entry?.egress ?? false,
      verdict: decision.verdict,
      taint: decision.taint,
      rule: decision.rule,
      reason: decision.reason,
      provenance: decision.provenance,
      executed,
    });
    if (executed) guard.afterToolCall(sessionId, { id: call.id, tool: call.function, output: call.output });
  }
  guard.endTurn(sessionId);
  return { trace, calls };
}
