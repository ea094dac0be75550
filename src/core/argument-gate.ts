import { hasSideEffect, type ActionClass } from "./action-classes.js";
import { decideByArguments, type ArgumentDecision } from "./argument-decision.js";
import { checkEgress } from "./argument-egress.js";
import { operationOf, type ToolOperationTable } from "./argument-operations.js";
import type { ToolArgumentRoles } from "./argument-roles.js";
import type { PolicyMode } from "./policy-modes.js";
import type { TrustLevel } from "./trust-levels.js";
import type { ValueProvenance } from "./value-provenance.js";

export interface ArgumentGateInput {
  readonly values: ValueProvenance;
  readonly tool: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly roles: ToolArgumentRoles;
  /** The operation each tool performs and the words that ask for it (`toolOperations`; derived from the name otherwise). */
  readonly operations: ToolOperationTable;
  readonly action: ActionClass;
  readonly taint: TrustLevel;
  /** The taint policy's mode for this call, and the rule that gave it. */
  readonly mode: PolicyMode;
  readonly rule: string;
  /** Let calls the taint policy would confirm under taint run when their arguments are proven (argumentProvenance). */
  readonly underTaint: boolean;
  /** Ask for calls the taint policy allows at `trusted` when an argument is not (argumentProvenanceAtTrusted). */
  readonly atTrusted: boolean;
}

export interface ArgumentVerdict {
  readonly verdict: "allow" | "confirm";
  readonly decision: ArgumentDecision;
  /** Why the call asks, for the approval prompt's first line, when it is not the taint policy's reason. */
  readonly why?: string;
}

export const ARGUMENT_PROVENANCE_RULE = "argument-provenance";

/**
 * Where argument provenance changes a verdict. Only calls with a side effect that the plain taint
 * policy decided (`rule` "taint-policy") are touched: an owner's explicit override, an unknown
 * tool, a restricted tool and a gate's verdict stand as they are.
 * - with `underTaint`, `confirm` under taint becomes `allow` when every argument satisfies its role's
 *   rule and the call as a whole is vouched for (the owner named its operation; the values that
 *   belong together come from one statement; an irreversible operation is named with its target),
 *   once per effect per session (a repeat of the same targets and amounts asks);
 * - with `atTrusted`, `allow` at trusted taint becomes `confirm` when some argument fails its rule
 *   (an output the policy over-trusts can still carry someone else's words inside a field).
 * - with `underTaint`, a read the policy allows under taint asks when an `egress` argument (a URL,
 *   a query) occurs in no single source (argument-egress.ts), whatever rule allowed it.
 * An `exec` call under taint always asks: what a command does depends on files and state no value
 * provenance covers.
 * Returns null when the call is not argument provenance's to decide. Every side-effecting call
 * under taint is remembered as an echo shadow, whatever decides it and whether it then runs or
 * waits for approval: its output, or anything that stores what it wrote, must not vouch for it.
 */
export function checkArguments(input: ArgumentGateInput): ArgumentVerdict | null {
  if (!hasSideEffect(input.action)) {
    if (!input.underTaint || input.taint === "trusted" || input.mode !== "allow") return null;
    const egress = checkEgress(input.values, input.tool, input.params, input.roles);
    return egress === null ? null : { verdict: "confirm", decision: egress, why: "a read whose request leaves the machine, under taint, with a request that occurs in no single source" };
  }
  // A command's effect is not fixed by where its words came from: `sh ./build.sh` the owner typed runs
  // whatever a tainted context wrote into build.sh. Under taint, exec is never argument provenance's to allow.
  const underTaint = input.underTaint && input.action !== "exec" && input.rule === "taint-policy" && input.mode === "confirm" && input.taint !== "trusted";
  const atTrusted = input.atTrusted && input.rule === "taint-policy" && input.mode === "allow" && input.taint === "trusted";
  const traces = underTaint || atTrusted ? input.values.traceArguments(input.tool, input.params, input.roles) : [];
  const decision = underTaint || atTrusted ? decideByArguments(traces) : null;
  input.values.recordExecutedCall(input.params, input.taint);
  if (decision === null) return null;
  if (underTaint) {
    if (!decision.runsUnasked) return { verdict: "confirm", decision };
    const operation = operationOf(input.operations, input.tool, input.action);
    const call = input.values.vouchCall(traces, operation);
    if (!call.vouched) {
      const line = `ASK operation (call) = "${operation.name}": ${call.finding}`;
      return { verdict: "confirm", decision: { ...decision, runsUnasked: false, reason: `the call as a whole is not vouched for\n${line}\n${decision.reason.split("\n").slice(1).join("\n")}` } };
    }
    if (input.values.claimEffect(input.tool, traces)) return { verdict: "allow", decision };
    return { verdict: "confirm", decision: { ...decision, runsUnasked: false, reason: `the same effect already ran once without asking in this session\n${decision.reason}` } };
  }
  return decision.undetermined.length === 0 ? null : { verdict: "confirm", decision };
}
