import type { ApprovalScope } from "./approval-codes.js";
import { isTrustLevel, TRUST_LEVELS, type TrustLevel } from "./trust-levels.js";

export type OwnerCommand =
  | {
      readonly kind: "approve";
      readonly tool: string;
      readonly code: string;
      /** Set with the minutes form; then the scope is `minutes`. */
      readonly minutes: number | null;
      /** What was asked for; null when the command left it to the default (`approvalScope`). */
      readonly scope: ApprovalScope | null;
    }
  | { readonly kind: "reset-trust"; readonly level: TrustLevel }
  | { readonly kind: "invalid"; readonly command: "approve" | "reset-trust"; readonly error: string };

const APPROVE_USAGE = "usage: .approve <tool|all> <8-hex-code> [call|turn|minutes]";
const RESET_USAGE = `usage: .reset-trust [${TRUST_LEVELS.join("|")}]`;
export const MAX_APPROVAL_MINUTES = 24 * 60;

/**
 * Recognises `.approve <tool|all> <code> [call|turn|minutes]` and `.reset-trust [level]` when they are the
 * whole message. Anything else is an ordinary message (null). Whether the sender may use them is
 * the guard's decision, not the parser's.
 */
export function parseOwnerCommand(text: string): OwnerCommand | null {
  const words = text.trim().split(/\s+/);
  const head = words[0];
  if (head === ".approve") {
    const [, tool, code, minutes, ...rest] = words;
    if (tool === undefined || code === undefined || rest.length > 0) return invalid("approve", APPROVE_USAGE);
    if (!/^[0-9a-fA-F]{8}$/.test(code)) return invalid("approve", `the code must be 8 hex characters; ${APPROVE_USAGE}`);
    let mins: number | null = null;
    let scope: ApprovalScope | null = null;
    if (minutes === "call" || minutes === "turn") {
      scope = { kind: minutes };
    } else if (minutes !== undefined) {
      if (!/^[0-9]{1,5}$/.test(minutes) || Number(minutes) < 1 || Number(minutes) > MAX_APPROVAL_MINUTES) {
        return invalid("approve", `the last word must be call, turn, or minutes as a whole number from 1 to ${MAX_APPROVAL_MINUTES}; ${APPROVE_USAGE}`);
      }
      mins = Number(minutes);
      scope = { kind: "minutes", minutes: mins };
    }
    return { kind: "approve", tool, code: code.toLowerCase(), minutes: mins, scope };
  }
  if (head === ".reset-trust") {
    const [, level, ...rest] = words;
    if (rest.length > 0) return invalid("reset-trust", RESET_USAGE);
    if (level === undefined) return { kind: "reset-trust", level: "trusted" };
    if (!isTrustLevel(level)) return invalid("reset-trust", `${JSON.stringify(level)} is not a trust level; ${RESET_USAGE}`);
    return { kind: "reset-trust", level };
  }
  return null;
}

function invalid(command: "approve" | "reset-trust", error: string): OwnerCommand {
  return { kind: "invalid", command, error };
}
