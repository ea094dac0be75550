import type { Decision } from "../../core/decision.js";
import { shownCall } from "../../guard-held-calls.js";
import type { ApprovalResolution, BeforeToolCallResult } from "./sdk-types.js";

/** OpenClaw caps approval prompts: title 80 characters, description 512, wait 10 minutes. */
const TITLE_MAX = 80;
const DESCRIPTION_MAX = 512;
const APPROVAL_WAIT_MAX_MS = 600_000;

export interface VerdictOptions {
  /**
   * Whether the run has a surface that can show OpenClaw's own approval prompt (a chat, the
   * Control UI, an operator client). Without one, OpenClaw cancels the request at once, so the
   * code-based approval is offered instead.
   */
  readonly approvalSurface: boolean;
  /**
   * Whether the requester is on a chat channel, where OpenClaw runs slash commands. Elsewhere (a
   * local `openclaw agent` run, cron) `/approve_tool` would be plain text, so it is not offered.
   */
  readonly slashCommands: boolean;
  readonly approvalWaitMs: number;
  /**
   * The plugin that asks: OpenClaw 2026.9.6 refuses an approval request from a trusted tool policy
   * that does not name its plugin ("signed plugin approval owner is unavailable").
   */
  readonly pluginId: string;
  readonly onResolution: (resolution: ApprovalResolution) => void;
}

/**
 * Translates a guard decision into `before_tool_call`'s result. `allow` is no result (the host
 * goes on); `block` is a terminal block whose reason the model sees as the tool's error; `confirm`
 * asks the owner through OpenClaw's approval flow where one exists, and otherwise blocks with the
 * approval code and the commands that use it.
 */
export function toolCallResult(decision: Decision, options: VerdictOptions): BeforeToolCallResult | undefined {
  if (decision.verdict === "allow") return undefined;
  if (decision.verdict === "block") return { block: true, blockReason: options.slashCommands ? withSlashReset(decision.reason) : decision.reason };
  const codeInstructions = options.slashCommands ? withSlashCommand(decision) : decision.reason;
  // OpenClaw's prompt shows its title and description, never the call's arguments: the exact call
  // leads the description, and a call too long to show there whole is asked with the code form,
  // whose block shows all of it (the owner approves what they saw, not whatever was held).
  const description = approvalDescription(decision);
  if (!options.approvalSurface || description === null) return { block: true, blockReason: codeInstructions };
  return {
    requireApproval: {
      title: clip(`Allow ${decision.tool}? (context is ${decision.taint})`, TITLE_MAX),
      description,
      severity: decision.taint === "untrusted" ? "critical" : "warning",
      timeoutMs: Math.min(Math.max(1_000, options.approvalWaitMs), APPROVAL_WAIT_MAX_MS),
      // The prompt waits as long as the call's approval code lives: by its end the code is spent.
      timeoutReason: `provenant held this ${decision.tool} call and OpenClaw's approval prompt was not answered in time: it did not run. Retry the call to be asked again.`,
      allowedDecisions: ["allow-once", "deny"],
      pluginId: options.pluginId,
      onResolution: options.onResolution,
    },
  };
}

/** The guard's reason names the `.approve` message form; OpenClaw users also have the slash command. */
export function withSlashCommand(decision: Decision): string {
  if (decision.code === undefined) return decision.reason;
  return `${decision.reason}\nOr in this chat: /approve_tool ${decision.tool} ${decision.code} [call|turn|minutes]`;
}

/** Where the guard tells the owner to `.reset-trust`, a chat owner also has `/reset_trust`. */
function withSlashReset(reason: string): string {
  return reason.replaceAll(".reset-trust", ".reset-trust (or /reset_trust)");
}

/** The exact call, then why it was held (cut to fit); null when the call alone does not fit. */
function approvalDescription(decision: Decision): string | null {
  const call = `Call: ${shownCall(decision)}`;
  if (call.length > DESCRIPTION_MAX - 2) return null;
  const source = decision.provenance === null ? "" : ` It contains ${decision.provenance.trust} content from ${decision.provenance.label}.`;
  const why = `provenant held this ${decision.tool} call: the conversation is ${decision.taint}.${source} Rule: ${decision.rule}.`;
  return clip(`${call}\n${why}`, DESCRIPTION_MAX);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
