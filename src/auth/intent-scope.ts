import type { ActionClass } from "../core/action-classes.js";
import type { GateVerdict } from "../core/gate.js";
import { encodeScope } from "./action-scope.js";
import type { MessageSource } from "./message-source.js";

export type AgentEscalation = "approval" | "block";

/**
 * RFC-001 table rows 2 and 3: a call inside the turn's intent scope runs (undefined: pass to the
 * next gate), a call outside it is blocked. An agent-sourced turn may escalate only through the
 * owner's approval code (`confirm`), and an unsigned turn authorises nothing at all.
 */
export function decideIntentScope(
  source: MessageSource,
  scope: ReadonlySet<ActionClass>,
  actionClass: ActionClass,
  agentEscalation: AgentEscalation = "approval",
): GateVerdict | undefined {
  if (source === "unsigned") {
    return {
      verdict: "block",
      rule: "intent-scope.unsigned",
      reason: `the turn's instruction is not authenticated, so it authorises no ${actionClass} call`,
    };
  }
  if (scope.has(actionClass)) return undefined;
  if (source === "agent" && agentEscalation === "approval") {
    return {
      verdict: "confirm",
      rule: "intent-scope.agent-escalation",
      reason: `another agent's message authorises ${encodeScope(scope)}, not ${actionClass}; the owner must approve`,
    };
  }
  return {
    verdict: "block",
    rule: "intent-scope.out-of-scope",
    reason: `the ${source} message authorises ${encodeScope(scope)}, not ${actionClass}`,
  };
}
