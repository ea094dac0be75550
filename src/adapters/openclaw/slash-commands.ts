import { parseOwnerCommand, type OwnerCommand } from "../../core/owner-commands.js";
import type { CommandOutcome } from "../../guard.js";
import type { CommandContext, CommandDefinition, CommandResult } from "./sdk-types.js";

export type ValidOwnerCommand = Exclude<OwnerCommand, { kind: "invalid" }>;

/** What the slash commands need from the rest of the plugin. */
export interface SlashCommandTarget {
  /** Applies the command to the conversation it came from; null when that cannot be told. */
  execute(ctx: CommandContext, command: ValidOwnerCommand, senderIsOwner: boolean | null): CommandOutcome | null;
  /** The owner bit: the host's when it gives one, else configured owner ids, else unknown. */
  senderIsOwner(ctx: CommandContext): boolean | null;
  /** Says who asked, so an owner refused for want of proof can add their id to `ownerIds`. */
  noteUnprovenOwner(ctx: CommandContext): void;
}

/**
 * `/reset_trust [level]` and `/approve_tool <tool|all> <code> [call|turn|minutes]`: the owner commands
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
      description: "provenant: approve a held tool call with its code (owner only). Usage: /approve_tool <tool|all> <code> [call|turn|minutes]",
      acceptsArgs: true,
      requireAuth: true,
      handler: (ctx) => run(target, ctx, ".approve"),
    },
  ];
}

function run(target: SlashCommandTarget, ctx: CommandContext, dotForm: ".reset-trust" | ".approve"): CommandResult {
  const parsed = parseOwnerCommand(`${dotForm} ${ctx.args ?? ""}`);
  if (parsed === null) return { text: "provenant: could not read the command" };
  if (parsed.kind === "invalid") return { text: `provenant: ${slashSpelling(parsed.error)}` };
  const isOwner = target.senderIsOwner(ctx);
  if (isOwner !== true) target.noteUnprovenOwner(ctx);
  // Between turns the guard applies an approval to the turn that comes next (the owner's retry).
  const command: ValidOwnerCommand = parsed;
  const outcome = target.execute(ctx, command, isOwner);
  if (outcome === null) return { text: "provenant: this command has no conversation to apply to" };
  if (!outcome.accepted && isOwner !== true) return { text: `provenant: ${outcome.message}. ${notProvenOwner(ctx)}` };
  return { text: `provenant: ${outcome.message}` };
}

/**
 * Says, in the chat, why a sender was not taken for the owner and what makes them one: the refusal
 * is otherwise only in the gateway's log, where the person typing the command cannot see it.
 */
export function notProvenOwner(ctx: CommandContext): string {
  const who = ctx.senderId === undefined ? "this sender" : `sender ${JSON.stringify(ctx.senderId)} on ${ctx.channel}`;
  const entry = ctx.senderId === undefined ? `<channel>:<your id>` : `${ctx.channel}:${ctx.senderId}`;
  return (
    `OpenClaw did not mark ${who} as the owner, and provenant's ownerIds does not list it. ` +
    `If this is you, set OpenClaw's owner (openclaw config set commands.ownerAllowFrom '["${entry}"]') ` +
    `or add the id to plugins.entries.provenant.config.ownerIds, then send the command again.`
  );
}

function slashSpelling(usage: string): string {
  return usage.replace(/\.approve\b/g, "/approve_tool").replace(/\.reset-trust\b/g, "/reset_trust");
}

/** The `.approve` / `.reset-trust` message a command stands for, as the guard parses it in a turn. */
export function dotForm(command: ValidOwnerCommand): string {
  if (command.kind !== "approve") return `.reset-trust ${command.level}`;
  const scope = command.minutes !== null ? String(command.minutes) : (command.scope?.kind ?? "");
  return `.approve ${command.tool} ${command.code} ${scope}`.trim();
}
