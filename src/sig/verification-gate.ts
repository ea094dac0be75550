import type { GateCall, GateVerdict, ToolGate } from "../core/gate.js";

export const OWNER_ONLY_SIG_TOOLS: readonly string[] = Object.freeze(["verify", "update_and_sign"]);

export interface VerificationGateOptions {
  readonly enforce: boolean;
  readonly gatedTools: readonly string[];
  /** Whether the session's current turn, which the call belongs to, has been verified. */
  readonly isVerified: (sessionId: string, turnId: string) => boolean;
  /** Whether the current turn's sender is the owner (null: not known). */
  readonly senderIsOwner: (sessionId: string) => boolean | null;
}

/**
 * First gate in the order, not subject to overrides. It keeps the owner-only tools away from
 * everyone else, and with enforcement on, holds the gated tools until `verify` has succeeded in
 * this turn. A turn whose sender is known not to be the owner is left to the taint policy, as in
 * the seed: such senders cannot call `verify`, and their tools are already restricted.
 */
export function createVerificationGate(options: VerificationGateOptions): ToolGate {
  const gated = new Set(options.gatedTools);
  const ownerOnly = new Set(OWNER_ONLY_SIG_TOOLS);
  return {
    name: "sig.verification",
    check(call: GateCall): GateVerdict | undefined {
      if (ownerOnly.has(call.tool) && call.senderIsOwner !== true) {
        return { verdict: "block", rule: "sig.owner_only", reason: `The ${call.tool} tool is available to the owner only.` };
      }
      if (!options.enforce || call.senderIsOwner === false || !gated.has(call.tool)) return undefined;
      if (options.isVerified(call.sessionId, call.turnId)) return undefined;
      return {
        verdict: "block",
        rule: "sig.verification_required",
        reason:
          `The ${call.tool} tool is locked until the signed instructions are verified in this turn. ` +
          `Call the verify tool with no arguments, check that every template is verified, then retry ${call.tool}.`,
      };
    },
    hiddenTools(sessionId: string, tools: readonly string[]): ReadonlySet<string> {
      if (options.senderIsOwner(sessionId) === true) return new Set();
      return new Set(tools.filter((tool) => ownerOnly.has(tool)));
    },
  };
}
