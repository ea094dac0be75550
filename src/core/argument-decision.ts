import type { DecisionArgument } from "./decision.js";
import type { ArgumentTrace } from "./value-provenance.js";

export interface ArgumentDecision {
  /** True only when every argument satisfies its role's rule: the call may run without asking. */
  readonly runsUnasked: boolean;
  /** The arguments that keep the call from running unasked (empty when it runs). */
  readonly undetermined: readonly ArgumentTrace[];
  /** One line per argument: what it is and where it came from, for the approval prompt. */
  readonly reason: string;
  /** Every traced argument, in parameter order. */
  readonly traces: readonly ArgumentTrace[];
}

/**
 * Decides a side-effecting call under taint from its arguments' provenance. A call with no
 * argument at all is decided by the taint policy alone (there is nothing to prove it safe with).
 */
export function decideByArguments(traces: readonly ArgumentTrace[]): ArgumentDecision {
  const undetermined = traces.filter((t) => !t.determined);
  const runsUnasked = traces.length > 0 && undetermined.length === 0;
  const lines = traces.map((t) => `${t.determined ? "ok" : "ASK"} ${t.path} (${t.role}) = "${t.value}": ${t.finding}`);
  const head =
    traces.length === 0
      ? "no arguments to trace"
      : runsUnasked
        ? "every target and amount is determined by trusted data and no content carries untrusted text"
        : `${undetermined.length} argument${undetermined.length === 1 ? "" : "s"} depend${undetermined.length === 1 ? "s" : ""} on untrusted data`;
  return { runsUnasked, undetermined, reason: [head, ...lines].join("\n"), traces };
}

/** The traces as a decision carries them: the same findings, as data for the owner's console. */
export function decisionArguments(traces: readonly ArgumentTrace[]): DecisionArgument[] {
  return traces.map((t) => ({
    path: t.path,
    role: t.role,
    value: t.value,
    determined: t.determined,
    finding: t.finding,
    sources: t.sources.map((m) => ({ id: m.source.id, kind: m.source.kind, tool: m.source.tool ?? null, trust: m.source.trust, how: m.how })),
  }));
}
