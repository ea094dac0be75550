import { homedir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../../core/logger.js";
import { Guard } from "../../guard.js";
import { SessionDirectory, type TurnState } from "./session-directory.js";
import { findRuntimeGaps } from "./runtime-gaps.js";
import type {
  AgentContext,
  BeforeToolCallEvent,
  BeforeToolCallResult,
  CommandContext,
  PluginApi,
  PluginLogger,
  ToolContext,
} from "./sdk-types.js";
import { ownerSlashCommands } from "./slash-commands.js";
import { narrowedTools, ToolSurface } from "./tool-surface.js";
import { toolCallResult } from "./tool-verdict.js";
import { originFromAgentContext, withHostOwnerVerdict, type TurnOrigin } from "./turn-origin.js";

export const PLUGIN_ID = "provenant";
export const TRUSTED_POLICY_ID = "provenant-taint-policy";

/** The guard methods the adapter drives. */
export type AdapterGuard = Pick<
  Guard,
  "config" | "beginTurn" | "toolsFor" | "beforeToolCall" | "afterToolCall" | "beforeResponse" | "endTurn" | "approve" | "resetTrust" | "close"
>;

/** Opens the guard for one agent workspace (state, watermarks and staging live there). */
export type GuardOpener = (workspaceDir: string, logger: Logger) => AdapterGuard;

/** Runs first among the ordinary hooks that see turns and replies, so others see our decisions. */
const FIRST = 10_000;

/**
 * Registers provenant on OpenClaw's upstream hooks. The guard does the deciding; this maps each
 * hook onto the guard's turn model (see docs/openclaw.md for the table and the gaps):
 *
 * - `before_prompt_build`: begin the turn provisionally and narrow the tools the model sees;
 * - `before_agent_run`, or the first tool call: confirm the turn with the host's owner verdict;
 * - `before_tool_call` (as a trusted tool policy where the SDK offers it): the decision;
 * - `after_tool_call`: the tool output's trust enters the graph (synchronously, so it counts
 *   before the model's next call: OpenClaw does not await this hook, but runs it inline);
 * - `reply_payload_sending`: the developer header; `agent_end`: seal and persist.
 */
export function registerProvenant(api: PluginApi, openGuard: GuardOpener): void {
  const logger = pluginLogger(api.logger);
  for (const gap of findRuntimeGaps(api.config, api.id || PLUGIN_ID)) {
    logger.error(`UNPROTECTED: ${gap.key} ${gap.message}`);
  }

  // A bad configuration stops registration here, with every problem named (ConfigError).
  const config = Guard.resolve(api.pluginConfig ?? {}, logger);
  const guards = new Map<string, AdapterGuard>();
  const guardFor = (workspaceDir: string): AdapterGuard => {
    const dir = config.workspaceDir ?? workspaceDir;
    let guard = guards.get(dir);
    if (guard === undefined) {
      guard = openGuard(dir, logger);
      guards.set(dir, guard);
    }
    return guard;
  };
  const defaultWorkspace = (): string => config.workspaceDir ?? openclawDefaultWorkspace(api.config);
  const sessions = new SessionDirectory();
  const surface = new ToolSurface([]);
  /**
   * OpenClaw's approval prompt needs somewhere to appear: a chat channel's same-chat `/approve` or
   * an approval client. Runs with no requester channel (a local CLI turn, an operator's gateway
   * call, cron) have none and are cancelled outright, so they get the approval code instead.
   */
  const surfacesWithoutApprovals = new Set<string>();
  const ownerIds = config.ownerIds;

  /** (Re)begins the guard's turn from what is known now. */
  const begin = (turn: TurnState, origin: TurnOrigin, text: string): void => {
    const guard = guardFor(turn.workspaceDir);
    const started = guard.beginTurn({
      sessionId: turn.sessionId,
      agentId: turn.agentId,
      sender: { id: origin.senderId, isOwner: origin.isOwner },
      provider: origin.provider,
      group: origin.group,
      spawnedBy: origin.spawnedBy,
      text,
    });
    if (started.command !== null) logger.info(`session ${turn.sessionId}: ${started.command.kind}: ${started.command.message}`);
  };

  const confirm = (turn: TurnState, hostSaysOwner: boolean | undefined): void => {
    if (turn.phase !== "provisional") return;
    const origin = withHostOwnerVerdict(turn.origin, hostSaysOwner, turn.trigger);
    if (origin.isOwner !== null) sessions.rememberOwnerVerdict(origin.provider, origin.senderId, origin.isOwner);
    turn.origin = origin;
    turn.phase = "confirmed";
    begin(turn, origin, turn.text);
  };

  api.on(
    "before_prompt_build",
    (event, ctx) => {
      const sessionId = sessions.sessionIdFor(ctx);
      if (sessionId === undefined) return undefined;
      const origin = originFromAgentContext(ctx, ownerIds, sessions.parentOf(ctx.sessionKey));
      const turn: TurnState = {
        sessionId,
        workspaceDir: ctx.workspaceDir ?? defaultWorkspace(),
        runId: ctx.runId ?? null,
        phase: "provisional",
        origin,
        agentId: ctx.agentId ?? null,
        text: event.currentUserMessage ?? event.prompt,
        trigger: ctx.trigger,
      };
      sessions.put(turn, ctx.sessionKey);
      // Provisional: an owner verdict not yet known is taken from the sender's last one, or
      // assumed, so the tool list is not narrowed (nor the watermark raised) on a guess. Commands
      // in the text wait for the confirmed turn.
      const known = origin.isOwner ?? sessions.ownerVerdict(origin.provider, origin.senderId) ?? true;
      begin(turn, { ...origin, isOwner: known }, "");
      const candidates = surface.candidates(turn.agentId);
      const toolsAllow = narrowedTools(candidates, guardFor(turn.workspaceDir).toolsFor(sessionId, candidates));
      return toolsAllow === undefined ? undefined : { toolsAllow };
    },
    { priority: FIRST },
  );

  api.on(
    "before_agent_run",
    (event, ctx) => {
      const turn = currentTurn(ctx);
      if (turn !== undefined) confirm(turn, event.senderIsOwner);
      return undefined;
    },
    { priority: FIRST },
  );

  api.on("llm_input", (event, ctx) => surface.learn(ctx.agentId ?? null, event.tools));

  /** The guard honours failMode itself; this covers the adapter's own mapping around it. */
  const decide = (event: BeforeToolCallEvent, ctx: ToolContext): BeforeToolCallResult | undefined => {
    try {
      return decideUnguarded(event, ctx);
    } catch (error) {
      logger.error(`before_tool_call mapping failed for ${event.toolName}; failing ${config.failMode}`, error);
      return config.failMode === "closed" ? { block: true, blockReason: "provenant could not check this tool call (see the gateway log)" } : undefined;
    }
  };

  const decideUnguarded = (event: BeforeToolCallEvent, ctx: ToolContext): BeforeToolCallResult | undefined => {
    const sessionId = sessions.sessionIdFor(ctx) ?? "openclaw:no-session";
    const turn = sessions.turn(sessionId);
    if (turn !== undefined) confirm(turn, ctx.requester?.senderIsOwner);
    const guard = guardFor(turn?.workspaceDir ?? defaultWorkspace());
    const decision = guard.beforeToolCall(sessionId, { ...(ctx.toolCallId ? { id: ctx.toolCallId } : {}), tool: event.toolName, params: event.params });
    if (decision.verdict !== "allow") logger.warn(`session ${sessionId}: ${decision.verdict} ${decision.tool} (${decision.rule}, context ${decision.taint})`);
    const channel = ctx.requester?.channel;
    return toolCallResult(decision, {
      approvalSurface: channel !== undefined && !surfacesWithoutApprovals.has(channel),
      approvalWaitMs: guard.config.approvalTtlSeconds * 1000,
      onResolution: (resolution) => {
        logger.info(`session ${sessionId}: owner approval for ${decision.tool}: ${resolution}`);
        // OpenClaw cancels at once when nothing can show the prompt; from then on that channel
        // gets the approval code instead.
        if (resolution === "cancelled" && channel !== undefined) surfacesWithoutApprovals.add(channel);
      },
    });
  };

  if (typeof api.registerTrustedToolPolicy === "function") {
    api.registerTrustedToolPolicy({
      id: TRUSTED_POLICY_ID,
      description: "provenant: taint policy, memory-file staging and gates for every tool call",
      evaluate: decide,
    });
  } else {
    logger.warn("this OpenClaw has no trusted tool policies; the tool gate runs as an ordinary before_tool_call hook");
    api.on("before_tool_call", decide, { priority: FIRST });
  }

  api.on("after_tool_call", (event, ctx) => {
    const sessionId = sessions.sessionIdFor(ctx);
    if (sessionId === undefined) return;
    const turn = sessions.turn(sessionId);
    guardFor(turn?.workspaceDir ?? defaultWorkspace()).afterToolCall(sessionId, {
      ...(ctx.toolCallId ? { id: ctx.toolCallId } : {}),
      tool: event.toolName,
      output: event.error !== undefined ? { error: event.error } : event.result,
    });
  });

  api.on("agent_end", (_event, ctx) => {
    const turn = currentTurn(ctx);
    if (turn === undefined) return;
    guardFor(turn.workspaceDir).endTurn(turn.sessionId);
    turn.phase = "ended";
  });

  api.on(
    "message_sending",
    (event, ctx) => {
      const sessionId = sessions.sessionIdFor({ sessionKey: ctx.sessionKey });
      const turn = sessionId === undefined ? undefined : sessions.turn(sessionId);
      if (turn === undefined) return undefined;
      const guard = guardFor(turn.workspaceDir);
      if (!guard.config.developerMode) return undefined;
      return { content: guard.beforeResponse(turn.sessionId, event.content).text };
    },
    { priority: FIRST },
  );

  api.on("subagent_spawned", (event, ctx) => {
    if (ctx.requesterSessionKey !== undefined) sessions.noteSubagent(event.childSessionKey, ctx.requesterSessionKey);
  });
  api.on("subagent_ended", (event) => sessions.forgetSubagent(event.targetSessionKey));
  api.on("session_end", (event, ctx) => sessions.forget(event.sessionId, ctx.sessionKey ?? event.sessionKey));

  const commandSession = (ctx: CommandContext) => {
    const sessionId = sessions.sessionIdFor(ctx);
    if (sessionId === undefined) return null;
    const guard = guardFor(sessions.turn(sessionId)?.workspaceDir ?? defaultWorkspace());
    return {
      sessionId,
      approve: (tool: string, code: string, minutes: number | null, isOwner: boolean | null) => guard.approve(sessionId, tool, code, minutes, isOwner),
      resetTrust: (level: Parameters<AdapterGuard["resetTrust"]>[1], isOwner: boolean | null) => guard.resetTrust(sessionId, level, isOwner),
    };
  };
  for (const command of ownerSlashCommands({
    sessionFor: commandSession,
    senderIsOwner: (ctx) => ctx.senderIsOwner ?? (ctx.senderId !== undefined && ownerIds.includes(ctx.senderId) ? true : null),
  })) {
    api.registerCommand(command);
  }

  function currentTurn(ctx: AgentContext): TurnState | undefined {
    const sessionId = sessions.sessionIdFor(ctx);
    return sessionId === undefined ? undefined : sessions.turn(sessionId);
  }
}

/** Where OpenClaw keeps an agent's workspace when a hook does not say. */
function openclawDefaultWorkspace(openclawConfig: unknown): string {
  const agents = (openclawConfig as { agents?: { defaults?: { workspace?: unknown } } } | null)?.agents;
  const configured = agents?.defaults?.workspace;
  if (typeof configured === "string" && configured !== "") return configured;
  return join(process.env.OPENCLAW_HOME || homedir(), ".openclaw", "workspace");
}

function pluginLogger(log: PluginLogger): Logger {
  return {
    info: (m) => log.info(`[provenant] ${m}`),
    warn: (m) => log.warn(`[provenant] ${m}`),
    error: (m, e) => log.error(`[provenant] ${m}${e instanceof Error ? `: ${e.stack ?? e.message}` : e === undefined ? "" : `: ${String(e)}`}`),
  };
}
