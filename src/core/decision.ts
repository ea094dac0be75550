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

/** Where one argument's value was found: an owner's message, another message, or a tool's output, at its trust. */
export interface DecisionArgumentSource {
  /** The source's id in the session's value provenance: the turn id of a message, the call id of a tool output. */
  readonly id: string;
  readonly kind: "owner" | "message" | "tool";
  readonly tool: string | null;
  readonly trust: TrustLevel;
  /** `owner-text` (the owner's own words), `field` (a whole field of a trusted output), `text` (words anywhere else). */
  readonly how: "owner-text" | "field" | "text";
}

/** One argument of a call as argument provenance traced it (core/value-provenance.ts). */
export interface DecisionArgument {
  /** Where in the parameters the value sits, e.g. `recipients[0]`. */
  readonly path: string;
  readonly role: string;
  /** The value, escaped for display and shortened. */
  readonly value: string;
  /** True when the argument does not depend on untrusted data. */
  readonly determined: boolean;
  readonly finding: string;
  readonly sources: readonly DecisionArgumentSource[];
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
  /** Each argument's provenance, present when argument provenance traced this call's arguments. */
  readonly arguments?: readonly DecisionArgument[];
}
