import { parseOwnerCommand } from "../../core/owner-commands.js";
import type { TrustLevel } from "../../core/trust-levels.js";
import type { CommandOutcome } from "../../guard.js";
import type { CommandContext, CommandDefinition, CommandResult } from "./sdk-types.js";

/** What the slash commands need from the rest of the plugin. */
export interface SlashCommandTarget {
  /** The guard session the command's conversation maps to, or null when it cannot be told. */
  sessionFor(ctx: CommandContext): { readonly sessionId: string; approve: ApproveFn; resetTrust: ResetFn } | null;
  /** The owner bit: the host's when it gives one, else configured owner ids, else unknown. */
  senderIsOwner(ctx: CommandContext): boolean | null;
}

type ApproveFn = (tool: string, code: string, minutes: number | null, senderIsOwner: boolean | null) => CommandOutcome;
type ResetFn = (level: TrustLevel, senderIsOwner: boolean | null) => CommandOutcome;

/**
 * A slash command is not an agent turn, so an approval without minutes could never apply to the
 * turn it was given in; it runs for this long instead, enough for the owner's next message.
 */
export const SLASH_APPROVAL_DEFAULT_MINUTES = 1;

/**
 * `/reset_trust [level]` and `/approve_tool <tool|all> <code> [minutes]`: the owner commands
 * `.reset-trust` and `.approve` as OpenClaw slash commands (`/approve` itself is OpenClaw's own).
 * Both require an authorised sender at the channel, and the guard then requires the owner.
 */
export function ownerSlashCommands(target: SlashCommandTarget): CommandDefinition[] {
  return [
    {
      name: "reset_trust",
      description: "provenant: clear the conversation's taint (owner only). Usage: /reset_trust [trusted|shared|external|untrusted]",
      acceptsArgs: true,
      requireAuth: true,
      handler: (ctx) => run(target, ctx, ".reset-trust"),
    },
    {
      name: "approve_tool",
      description: "provenant: approve a held tool call with its code (owner only). Usage: /approve_tool <tool|all> <code> [minutes]",
      acceptsArgs: true,
      requireAuth: true,
      handler: (ctx) => run(target, ctx, ".approve"),
    },
  ];
}

function run(target: SlashCommandTarget, ctx: CommandContext, dotForm: ".reset-trust" | ".approve"): CommandResult {
  const parsed = parseOwnerCommand(`${dotForm} ${ctx.args ?? ""}`);
  if (parsed === null) return { text: "provenant: could not read the command" };
  if (parsed.kind === "invalid") return { text: `provenant: ${parsed.error.replace(/\.(approve|reset-trust)/g, (m) => (m === ".approve" ? "/approve_tool" : "/reset_trust"))}` };
  const session = target.sessionFor(ctx);
  if (session === null) return { text: "provenant: this command has no conversation to apply to" };
  const isOwner = target.senderIsOwner(ctx);
  const outcome =
    parsed.kind === "approve"
      ? session.approve(parsed.tool, parsed.code, parsed.minutes ?? SLASH_APPROVAL_DEFAULT_MINUTES, isOwner)
      : session.resetTrust(parsed.level, isOwner);
  return { text: `provenant: ${outcome.message}` };
}
