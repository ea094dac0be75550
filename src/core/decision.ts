import type { TrustLevel } from "./trust-levels.js";

export type Verdict = "allow" | "confirm" | "block";

/** The provenance graph node whose trust set the taint a decision was made at. */
export interface DecisionProvenance {
  readonly nodeId: number;
  readonly kind: string;
  readonly label: string;
  readonly tool: string | null;
  readonly trust: TrustLevel;
}

/**
 * A decision is data: the same object is logged, written to the ledger, shown to the owner and
 * asserted in tests. `rule` names the rule that produced it; `reason` says it in words.
 */
export interface Decision {
  readonly tool: string;
  readonly verdict: Verdict;
  readonly taint: TrustLevel;
  readonly rule: string;
  readonly reason: string;
  /** Approval code, present only when the verdict is `confirm`. */
  readonly code?: string;
  readonly provenance: DecisionProvenance | null;
  /** Set when the call was a protected memory-file write that was staged instead of run. */
  readonly staged?: { readonly id: string; readonly path: string };
}
