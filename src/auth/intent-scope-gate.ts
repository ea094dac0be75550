import type { ActionClass } from "../core/action-classes.js";
import { NO_AUDIT, type AuditSink } from "../core/audit-sink.js";
import type { GateCall, GateVerdict, ToolGate } from "../core/gate.js";
import { encodeScope } from "./action-scope.js";
import { decideIntentScope, type AgentEscalation } from "./intent-scope.js";
import type { MessageSource } from "./message-source.js";

export interface TurnScope {
  readonly source: MessageSource;
  readonly classes: ReadonlySet<ActionClass>;
}

export interface IntentScopeGateOptions {
  /** `warn` records what would have been blocked and lets the call through (the rollout path). */
  readonly mode?: "warn" | "enforce";
  readonly agentEscalation?: AgentEscalation;
  readonly audit?: AuditSink;
}

/**
 * The intent-scope check as a ToolGate. The guard calls `setScope` when a turn starts (the
 * authenticated message's source and scope) and the gate checks each call's action class against
 * it. A session with no scope set has no authenticated instruction, so it is treated as unsigned.
 */
export class IntentScopeGate implements ToolGate {
  readonly name = "intent-scope";
  private readonly scopes = new Map<string, TurnScope>();
  private readonly mode: "warn" | "enforce";
  private readonly agentEscalation: AgentEscalation;
  private readonly audit: AuditSink;

  constructor(
    private readonly actionClassOf: (tool: string) => ActionClass,
    options: IntentScopeGateOptions = {},
  ) {
    this.mode = options.mode ?? "enforce";
    this.agentEscalation = options.agentEscalation ?? "approval";
    this.audit = options.audit ?? NO_AUDIT;
  }

  setScope(sessionId: string, scope: TurnScope): void {
    this.scopes.set(sessionId, { source: scope.source, classes: new Set(scope.classes) });
  }

  clearScope(sessionId: string): void {
    this.scopes.delete(sessionId);
  }

  scopeOf(sessionId: string): TurnScope | undefined {
    return this.scopes.get(sessionId);
  }

  check(call: GateCall): GateVerdict | undefined {
    const scope = this.scopes.get(call.sessionId) ?? { source: "unsigned", classes: new Set<ActionClass>() };
    const actionClass = this.actionClassOf(call.tool);
    const verdict = decideIntentScope(scope.source, scope.classes, actionClass, this.agentEscalation);
    if (verdict === undefined || this.mode === "enforce") return verdict;
    this.audit.record("META", {
      event: "intent-scope-warning",
      session: call.sessionId,
      turn: call.turnId,
      tool: call.tool,
      actionClass,
      source: scope.source,
      scope: encodeScope(scope.classes),
      wouldBe: verdict.verdict,
      rule: verdict.rule,
    });
    return undefined;
  }

  /** Tools that would be blocked outright are not shown; those needing approval stay visible. */
  hiddenTools(sessionId: string, tools: readonly string[]): ReadonlySet<string> {
    if (this.mode === "warn") return new Set();
    const scope = this.scopes.get(sessionId) ?? { source: "unsigned" as const, classes: new Set<ActionClass>() };
    const hidden = new Set<string>();
    for (const tool of tools) {
      const verdict = decideIntentScope(scope.source, scope.classes, this.actionClassOf(tool), this.agentEscalation);
      if (verdict?.verdict === "block") hidden.add(tool);
    }
    return hidden;
  }
}
