import { homedir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../../core/logger.js";
import type { TrustLevel } from "../../core/trust-levels.js";
import { Guard } from "../../guard.js";
import type { Decision } from "../../core/decision.js";
import { parseOwnerCommand } from "../../core/owner-commands.js";
import { failSafeDecision } from "../../guard-fail-safe.js";
import { heldCall } from "../../core/call-text.js";
import { currentHostConfig, PLUGIN_ID } from "./host-config.js";
import { HeldCallInbox } from "./held-call-inbox.js";
import { inlinedContent } from "./inlined-content.js";
import { withoutStartupNotes } from "./startup-notes.js";
import { LINK_UNDERSTANDING_KEY, linkUnderstandingOn, withoutFetchedPages } from "./link-understanding.js";
import { OWNER_TOOL_NAMES, ownerToolFactory } from "./owner-tools.js";
import { splitPluginConfig } from "./plugin-config.js";
import { processState, sharedGuard, surfaceKey } from "./process-state.js";
import { MAX_PROMPT_FILES, promptFiles } from "./prompt-files.js";
import type { TurnState } from "./session-directory.js";
import { findRuntimeGaps } from "./runtime-gaps.js";
import type {
  AgentContext,
  BeforeToolCallEvent,
  BeforeToolCallResult,
  CommandContext,
  PluginApi,
  PluginLogger,
  HookHandlers,
  PluginService,
  ToolContext,
  ToolRequester,
} from "./sdk-types.js";
import { hasMutableSignedFiles, signedSourceHint } from "./signed-source-hint.js";
import { dotForm, ownerSlashCommands, type ValidOwnerCommand } from "./slash-commands.js";
import { narrowedTools } from "./tool-surface.js";
import { toolCallResult } from "./tool-verdict.js";
import { originFromAgentContext, withHostOwnerVerdict } from "./turn-origin.js";
import { foreignRuntimeContext, type ForeignText } from "./runtime-context.js";
import { borrowedContext } from "./borrowed-context.js";
import { bootCheckFile } from "./boot-check.js";
import { addedContext, addedSystemContext } from "./added-context.js";
import { messageRole, steeredMessage, userMessageText } from "./steered-messages.js";
import { markedAsNotOwners, markedAsTainted } from "./memory-marks.js";

export const TRUSTED_POLICY_ID = "provenant-taint-policy";
/** The runtimes whose tool results the plugin reads before the model does (manifest contract). */
export const TOOL_RESULT_RUNTIMES = ["openclaw", "codex"] as const;

/** The guard methods the adapter drives. */
export type AdapterGuard = Pick<
  Guard,
  "config" | "beginTurn" | "inheritTaint" | "contextFiles" | "toolsFor" | "previewTools" | "taint" | "beforeToolCall" | "afterToolCall" | "beforeResponse" | "endTurn" | "approve" | "resetTrust" | "runOwnerTool" | "close"
>;

/** Opens the guard for one agent workspace (state, watermarks and staging live there). */
export type GuardOpener = (workspaceDir: string, logger: Logger) => AdapterGuard;

/**
 * The owner's console as a gateway service, when `console.serve` is on: given the workspace it
 * shows, its port and the plugin's logger (the entry supplies it; the console is above adapters).
 */
export type ConsoleServiceFactory = (workspace: () => string, port: number, logger: Logger) => PluginService;

/** Runs first among the ordinary hooks that see turns and replies, so others see our decisions. */
const FIRST = 10_000;

/**
 * OpenClaw cancels a prompt it has no place for at once (before asking its gateway, or on the
 * gateway's immediate "no route"). One cancelled later was shown and then ended otherwise: the
 * owner stopped the run, the gateway went away. Only the first says something about the channel.
 */
const PLACELESS_CANCEL_MS = 2000;

/**
 * How long a channel account that had no place for a prompt gets the approval code instead. The
 * cancellation may have been a gateway that failed for a moment, or approvals the owner enables
 * later; after this the next held call asks there again. The cost on a channel that really cannot
 * show prompts: one held call in ten minutes ends with OpenClaw's reason instead of a code.
 */
const PLACELESS_FOR_MS = 10 * 60_000;

/**
 * Registers provenant on OpenClaw's upstream hooks. The guard does the deciding; this maps each
 * hook onto the guard's turn model (see docs/openclaw.md for the table and the gaps):
 *
 * - `before_prompt_build`: note the turn and narrow the tools the model sees;
 * - `before_agent_run`, or the first tool call: begin the guard's turn with the host's owner
 *   verdict (a message that authentication refuses stops the run there);
 * - `before_tool_call` (as a trusted tool policy where the SDK offers it): the decision;
 * - `after_tool_call`: the tool output's trust enters the graph (synchronously, so it counts
 *   before the model's next call: OpenClaw does not await this hook, but runs it inline);
 * - `message_sending`: the developer header; `agent_end`: seal and persist.
 */
export function registerProvenant(api: PluginApi, openGuard: GuardOpener, consoleService?: ConsoleServiceFactory): void {
  const logger = pluginLogger(api.logger);
  // The id OpenClaw knows this plugin by: its configuration entry, and the owner it checks an approval request against.
  const pluginId = api.id || PLUGIN_ID;
  for (const gap of findRuntimeGaps(api.config, pluginId)) {
    logger.error(`UNPROTECTED: ${gap.key} ${gap.message}`);
  }

  /** Whether link understanding is on at this turn; a host that cannot say counts as having it on. */
  const linksFetched = (): boolean => {
    try {
      return linkUnderstandingOn(currentHostConfig(api));
    } catch {
      return true;
    }
  };
  let linksWarned = false;
  const warnOfLinks = (): void => {
    if (linksWarned) return;
    linksWarned = true;
    logger.warn(
      `${LINK_UNDERSTANDING_KEY} is on: OpenClaw appends the pages it fetches for a message's links to the message itself, unmarked. ` +
        "A message holding a link is read as the sender's words only up to the first blank line after its first link; the rest " +
        "makes the turn untrusted, so its side effects ask.",
    );
  };
  if (linkUnderstandingOn(api.config)) warnOfLinks();
  const pagesOf = (text: string): ReturnType<typeof withoutFetchedPages> => {
    if (!linksFetched()) return { text, found: null };
    warnOfLinks();
    return withoutFetchedPages(text);
  };
  /** A message's sender's own words, and what OpenClaw put into it beside them (daily notes, attached files, fetched pages). */
  const readMessage = (text: string): { ownWords: string; foreign: readonly ForeignText[] } => {
    const notes = withoutStartupNotes(text);
    const pages = pagesOf(notes.text);
    const inlined = inlinedContent(pages.text);
    return { ownWords: inlined.ownWords, foreign: [...inlined.found, ...[pages.found, notes.found].filter((f) => f !== null)] };
  };

  // A bad configuration stops registration here, with every problem named (ConfigError).
  const plugin = splitPluginConfig(api.pluginConfig ?? {});
  const config = Guard.resolve(plugin.guard, logger);
  const shared = processState();
  const configKey = JSON.stringify(api.pluginConfig ?? {});
  const guardFor = (workspaceDir: string): AdapterGuard => {
    const dir = config.workspaceDir ?? workspaceDir;
    return sharedGuard(shared, dir, configKey, () => openGuard(dir, logger));
  };
  /**
   * An agent's workspace when a hook does not name it (a command, a call or a result in a
   * conversation no turn of this process has shown, such as the owner's `/approve_tool` after a
   * restart): provenant's `workspaceDir`, else where OpenClaw keeps that agent's workspace, else
   * the default agent's. Each agent's guard keeps its state there.
   */
  const workspaceOf = (agentId: string | undefined): string => {
    if (config.workspaceDir !== undefined) return config.workspaceDir;
    const resolve = api.runtime?.agent?.resolveAgentWorkspaceDir;
    if (agentId !== undefined && typeof resolve === "function") {
      try {
        const dir = resolve(currentHostConfig(api) as never, agentId);
        if (typeof dir === "string" && dir !== "") return dir;
      } catch (error) {
        logger.warn(`OpenClaw could not say where agent ${JSON.stringify(agentId)} keeps its workspace; using the default agent's: ${String(error)}`);
      }
    }
    return openclawDefaultWorkspace(api.config);
  };
  const { sessions, surface, calls } = shared;
  /**
   * The channel accounts on which OpenClaw cancelled a person's prompt for want of a place to show
   * it (approvals disabled or unsupported there, no approval route, a gateway that failed at once):
   * for {@link PLACELESS_FOR_MS} their held calls name the approval code instead.
   */
  const surfacesWithoutApprovals = shared.surfacesWithoutApprovals;
  const ownerIds = config.ownerIds;
  // OpenClaw awaits a trusted tool policy without a time limit; an ordinary before_tool_call hook
  // it cuts off after 15 s and blocks (fail-closed), so a held call waits only as a trusted policy.
  const canWait = typeof api.registerTrustedToolPolicy === "function";
  const inbox = new HeldCallInbox({ logger, waitMs: canWait ? config.approvalWaitSeconds * 1000 : 0 });
  if (plugin.console.serve) {
    if (consoleService === undefined) logger.warn("console.serve is on, but this entry cannot serve the console; run `provenant console` instead");
    else api.registerService(consoleService(() => workspaceOf(undefined), plugin.console.port, logger));
  }

  /** Taints a begun turn with the foreign text noted for it (in its message, its runtime context) and not yet applied. */
  const applyForeignContext = (turn: TurnState): void => {
    for (const found of turn.foreignContext.values()) {
      if (found.applied) continue;
      found.applied = true;
      guardFor(turn.workspaceDir).inheritTaint(turn.sessionId, found.level, found.reason, found.ofMessage === true);
      if (found.lines !== undefined) sessions.noteTainting(turn.sessionId, found.lines);
    }
  };

  /**
   * Begins the guard's turn, once, when the host's owner verdict is known: at `before_agent_run`,
   * or at the first tool call on runtimes that do not emit it. Returns the refusal when message
   * authentication refused the turn's message.
   */
  const confirm = (turn: TurnState, hostSaysOwner: boolean | undefined, systemPrompt?: string): string | null => {
    if (turn.phase !== "pending") return turn.refusal;
    const origin = withHostOwnerVerdict(turn.origin, hostSaysOwner, turn.trigger);
    turn.origin = origin;
    turn.phase = "confirmed";
    const guard = guardFor(turn.workspaceDir);
    const started = guard.beginTurn({
      sessionId: turn.sessionId,
      ...(turn.sessionKey !== undefined ? { sessionKey: turn.sessionKey } : {}),
      agentId: turn.agentId,
      sender: { id: origin.senderId, isOwner: origin.isOwner },
      provider: origin.provider,
      group: origin.group,
      spawnedBy: origin.spawnedBy,
      text: turn.text,
      ...(turn.messageId !== undefined ? { messageId: turn.messageId } : {}),
      ...(turn.jobId !== undefined ? { jobId: turn.jobId } : {}),
      ...(turn.inputProvenance !== undefined ? { inputProvenance: turn.inputProvenance } : {}),
      ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    });
    if (started.command !== null) {
      logger.info(`session ${turn.sessionId}: ${started.command.kind}: ${started.command.message}`);
      const typed = parseOwnerCommand(turn.text);
      if (started.command.accepted && typed?.kind === "approve") inbox.answeredElsewhere(turn.workspaceDir, typed.code);
    }
    if (started.authentication !== undefined && !started.authentication.accepted) {
      turn.refusal = started.authentication.publicReason ?? "the message could not be authenticated";
    }
    // What OpenClaw put in the prompt with no call (its workspace files, the skills it lists) is
    // in the model's context from the turn's first word, as if read then.
    const listed = promptFiles(systemPrompt, turn.workspaceDir, homedir());
    guard.contextFiles(turn.sessionId, listed.files, "a file in OpenClaw's system prompt");
    if (turn.runsFile !== undefined) guard.contextFiles(turn.sessionId, [turn.runsFile], "the BOOT.md OpenClaw's boot-md hook ran at the gateway's start");
    if (listed.overflow) guard.inheritTaint(turn.sessionId, "untrusted", `OpenClaw's system prompt names more than ${MAX_PROMPT_FILES} files; the rest were not checked`);
    applyForeignContext(turn);
    return turn.refusal;
  };

  /**
   * OpenClaw runs the turn when this hook throws (the hook fails open), and a call in a session
   * whose last turn ended continues that turn at its taint: a message this hook could not read must
   * not run as the owner's last turn. Its turn is noted as one nobody vouches for.
   */
  const unreadTurn = (ctx: AgentContext, error: unknown): undefined => {
    logger.error("before_prompt_build failed; the turn is treated as untrusted", error);
    try {
      const sessionId = sessions.sessionIdFor(ctx);
      if (sessionId === undefined) return undefined;
      const what = "a message the plugin could not read";
      sessions.put(
        {
          sessionId,
          sessionKey: ctx.sessionKey,
          workspaceDir: ctx.workspaceDir ?? workspaceOf(ctx.agentId),
          runId: ctx.runId ?? null,
          phase: "pending",
          origin: { provider: "openclaw:unread", senderId: null, isOwner: false, group: null, spawnedBy: null },
          agentId: ctx.agentId ?? null,
          text: "",
          foreignContext: new Map([[what, { level: "untrusted", what, reason: `the turn's message: ${what}`, applied: false }]]),
          messageId: ctx.runId,
          jobId: ctx.jobId,
          inputProvenance: ctx.inputProvenance,
          trigger: ctx.trigger,
          refusal: null,
        },
        ctx.sessionKey,
      );
    } catch (inner) {
      logger.error("the turn the plugin could not read could not be noted", inner);
    }
    return undefined;
  };

  api.on(
    "before_prompt_build",
    (event, ctx) => {
      try {
        return promptBuild(event, ctx);
      } catch (error) {
        return unreadTurn(ctx, error);
      }
    },
    { priority: FIRST },
  );

  function promptBuild(event: Parameters<HookHandlers["before_prompt_build"]>[0], ctx: AgentContext): ReturnType<HookHandlers["before_prompt_build"]> {
    const sessionId = sessions.sessionIdFor(ctx);
    if (sessionId === undefined) return undefined;
    const text = event.currentUserMessage ?? event.prompt;
    const message = readMessage(text);
    const borrowed = borrowedContext(ctx.runId);
    const foreign = [
      ...message.foreign.map((found) => ({ found, reason: `the turn's message: ${found.what}` })),
      ...(borrowed === null ? [] : [{ found: borrowed, reason: `the run's context: ${borrowed.what}` }]),
    ];
    const inbound = sessions.inboundSender(ctx.sessionKey);
    const withSender = ctx.senderId === undefined && inbound !== undefined ? { ...ctx, senderId: inbound.senderId, messageProvider: ctx.messageProvider ?? inbound.channel } : ctx;
    const turn: TurnState = {
      sessionId,
      sessionKey: ctx.sessionKey,
      workspaceDir: ctx.workspaceDir ?? workspaceOf(ctx.agentId),
      runId: ctx.runId ?? null,
      phase: "pending",
      origin: originFromAgentContext(withSender, ownerIds, sessions.parentOf(ctx.sessionKey), text),
      agentId: ctx.agentId ?? null,
      text: message.ownWords,
      foreignContext: new Map(foreign.map(({ found, reason }) => [found.what, { ...found, reason, applied: false }])),
      messageId: event.currentUserMessageId ?? ctx.runId,
      jobId: ctx.jobId,
      inputProvenance: ctx.inputProvenance,
      trigger: ctx.trigger,
      refusal: null,
    };
    const runsFile = bootCheckFile(text, turn.workspaceDir);
    if (runsFile !== null) turn.runsFile = runsFile;
    sessions.put(turn, ctx.sessionKey);
    // The owner verdict for this turn is not known yet (it comes with before_agent_run), so the
    // tool list follows the conversation's taint as it stands (its last turn, or for a
    // conversation this process has not seen, its persisted watermark), plus the sender's
    // classification where configuration already proves it; every call is decided again.
    const guard = guardFor(turn.workspaceDir);
    const candidates = surface.candidates(turn.agentId);
    const toolsAllow = narrowedTools(
      candidates,
      guard.previewTools(
        { sessionId, agentId: turn.agentId, sender: { id: turn.origin.senderId, isOwner: turn.origin.isOwner }, provider: turn.origin.provider, spawnedBy: turn.origin.spawnedBy },
        candidates,
      ),
    );
    if (toolsAllow !== undefined) turn.hidden = candidates.filter((tool) => !toolsAllow.includes(tool));
    const hint =
      turn.origin.isOwner !== false && turn.messageId !== undefined && hasMutableSignedFiles(turn.workspaceDir)
        ? signedSourceHint(sessionId, turn.origin.provider ?? "openclaw", turn.messageId)
        : undefined;
    turn.prompt = { message: event.prompt, own: hint, checked: false };
    if (toolsAllow === undefined && hint === undefined) return undefined;
    return { ...(toolsAllow !== undefined ? { toolsAllow } : {}), ...(hint !== undefined ? { prependContext: hint } : {}) };
  }

  api.on(
    "before_agent_run",
    (event, ctx) => {
      const turn = currentTurn(ctx);
      if (turn === undefined) return undefined;
      const refusal = confirm(turn, event.senderIsOwner, event.systemPrompt);
      return refusal === null ? undefined : { outcome: "block", reason: "provenant: message authentication refused the message", message: refusal };
    },
    { priority: FIRST },
  );

  /**
   * OpenClaw goes on when one of these hooks throws (`llm_input`, `after_tool_call`,
   * `before_message_write`): what the hook could not read is someone else's as far as the plugin
   * knows, so it taints the conversation (a turn not yet begun takes it when it begins).
   */
  const taintUnread = (ctx: { sessionId?: string; sessionKey?: string; agentId?: string }, what: string, error: unknown): void => {
    logger.error(`${what}; the conversation is treated as untrusted`, error);
    try {
      const sessionId = sessions.sessionIdFor(ctx);
      if (sessionId === undefined) return;
      const turn = sessions.turn(sessionId);
      if (turn?.phase === "pending") {
        turn.foreignContext.set(what, { level: "untrusted", what, reason: what, applied: false });
        return;
      }
      guardFor(turn?.workspaceDir ?? workspaceOf(ctx.agentId)).inheritTaint(sessionId, "untrusted", what);
    } catch (inner) {
      logger.error(`the taint for ${what} could not be recorded`, inner);
    }
  };

  api.on("llm_input", (event, ctx) => {
    try {
      judgeRequest(event, ctx);
    } catch (error) {
      taintUnread(ctx, "a model request the plugin could not read", error);
    }
  });

  function judgeRequest(event: Parameters<HookHandlers["llm_input"]>[0], ctx: AgentContext): void {
    surface.learn(ctx.agentId ?? null, event.tools);
    // The model reads the host's runtime context with the turn's message; what in it is not the
    // owner's words taints the turn before the model's call (runtime-context.ts).
    const turn = currentTurn(ctx);
    if (turn === undefined || turn.phase === "ended") return;
    // The turn's first request: what other plugins added to the message is someone else's text.
    // (A later request's prompt may be a message the host steered into the turn, judged as such.)
    if (turn.prompt !== undefined && !turn.prompt.checked && typeof event.prompt === "string") {
      turn.prompt.checked = true;
      const added = addedContext(event.prompt, turn.prompt.message, turn.prompt.own);
      if (added !== null) turn.foreignContext.set(added.what, { ...added, reason: `the prompt the model gets: ${added.what}`, applied: false });
    }
    // Every request's system prompt: a plugin's system context is the model's standing instructions.
    const addedSystem = typeof event.systemPrompt === "string" ? addedSystemContext(event.systemPrompt) : null;
    if (addedSystem !== null && !turn.foreignContext.has(addedSystem.what)) {
      turn.foreignContext.set(addedSystem.what, { ...addedSystem, reason: `OpenClaw's system prompt: ${addedSystem.what}`, applied: false });
    }
    for (const found of foreignRuntimeContext(event.historyMessages ?? [], turn.origin.group !== null)) {
      if (turn.foreignContext.has(found.what)) continue;
      if (found.lines !== undefined && sessions.taintedBefore(turn.sessionId, found.lines)) continue;
      turn.foreignContext.set(found.what, { ...found, reason: `OpenClaw's runtime context for this turn: ${found.what}`, applied: false });
    }
    if (turn.phase === "confirmed") applyForeignContext(turn);
  }

  /**
   * A user message written after the model has answered in the turn was handed to the running turn
   * (steered-messages.ts), and the model's next call reads it: unless it is the owner's own words,
   * it taints the turn before that call (the host runs `before_message_write` synchronously, before
   * the write), or when the turn begins where the host's owner verdict comes only with the first
   * tool call. A message that cannot be read taints it too.
   */
  const judgeSteered = (message: unknown, turn: TurnState): void => {
    const note = (found: ForeignText) => turn.foreignContext.set(`steered: ${found.what}`, { ...found, reason: `a message OpenClaw handed the running turn: ${found.what}`, applied: false });
    try {
      if (messageRole(message) === "assistant") turn.answered = true;
      if (turn.answered !== true) return;
      const steered = steeredMessage(message, ownerIds);
      if (steered === null) return;
      if (!steered.owner) note({ level: "untrusted", what: steered.from });
      else for (const found of readMessage(steered.text).foreign) note(found);
      if (steered.owner && steered.media) note({ level: "untrusted", what: "media attached to the owner's message (what it shows is whoever made it)" });
    } catch (error) {
      logger.error(`session ${turn.sessionId}: a message written into the running turn could not be read; the turn is treated as untrusted`, error);
      note({ level: "untrusted", what: "a message that could not be read" });
    }
    if (turn.phase === "confirmed") applyForeignContext(turn);
  };

  /**
   * The model's message, written while the guard holds the session below trusted, carries OpenClaw's
   * own mark of a tainted turn (memory-marks.ts), so the host's memory does not promote it into
   * `MEMORY.md`. A taint that cannot be read counts as untrusted: the mark only keeps a line out of
   * memory.
   */
  const markIfTainted = <M>(message: M, turn: TurnState): { message: M } | undefined => {
    let taint: TrustLevel | undefined;
    try {
      taint = guardFor(turn.workspaceDir).taint(turn.sessionId);
    } catch (error) {
      logger.error(`session ${turn.sessionId}: its taint could not be read; the model's message is written as a tainted turn's`, error);
      taint = "untrusted";
    }
    const marked = markedAsTainted(message, taint);
    return marked === undefined ? undefined : { message: marked };
  };

  /**
   * The owner's message whose text is partly someone else's, what OpenClaw put into it (a
   * document's text, a fetched page), written with the mark that keeps it out of the host's memory
   * (memory-marks.ts). It is judged by itself: OpenClaw writes a channel message when it admits
   * it, before the turn's hooks. A message whose text cannot be read is marked, as far as it can be.
   */
  const markIfNotOwners = <M>(message: M, sessionKey: string | undefined): { message: M } | undefined => {
    let foreign = true;
    try {
      const text = userMessageText(message);
      if (text === null) return undefined;
      foreign = readMessage(text).foreign.length > 0;
    } catch (error) {
      logger.error(`session ${String(sessionKey)}: a user message's text could not be read; it is written as not the owner's words`, error);
    }
    if (!foreign) return undefined;
    try {
      const marked = markedAsNotOwners(message);
      return marked === undefined ? undefined : { message: marked };
    } catch (error) {
      logger.error(`session ${String(sessionKey)}: a user message could not be marked as not the owner's words; it is written as it is`, error);
      return undefined;
    }
  };

  /**
   * What OpenClaw writes into a transcript: judged for a session whose turn this process has seen,
   * marked for its memory. A write the plugin cannot even place (its event throws when read) would
   * go on unjudged, as the host carries on past a hook's throw: the session the context names is
   * treated as untrusted instead.
   */
  api.on(
    "before_message_write",
    (event, ctx) => {
      try {
        const sessionKey = event.sessionKey ?? ctx.sessionKey;
        const sessionId = sessions.sessionIdFor({ sessionKey });
        const turn = sessionId === undefined ? undefined : sessions.turn(sessionId);
        if (turn !== undefined && turn.phase !== "ended") judgeSteered(event.message, turn);
        return (turn === undefined ? undefined : markIfTainted(event.message, turn)) ?? markIfNotOwners(event.message, sessionKey);
      } catch (error) {
        taintUnread(ctx, "a message OpenClaw wrote into the transcript that the plugin could not read", error);
        return undefined;
      }
    },
    { priority: FIRST },
  );

  /** Whether the requester's channel account is still within its time without prompts (the record goes when it ends). */
  const placeless = (requester: ToolRequester): boolean => {
    const key = surfaceKey(requester);
    const since = surfacesWithoutApprovals.get(key);
    if (since === undefined) return false;
    if (Date.now() - since < PLACELESS_FOR_MS) return true;
    surfacesWithoutApprovals.delete(key);
    return false;
  };

  /**
   * Whether OpenClaw's own prompt asks the owner about a held call. OpenClaw shows a plugin's prompt
   * only on a run a person started (trigger `user`; a heartbeat's or a cron job's run has no one
   * to ask) through a chat channel (a local CLI turn, an operator's gateway call have none), and
   * cancels it at once elsewhere. A group gets the code too: every member would see the prompt,
   * while an approval code is the owner's alone (provenant checks who sends it).
   */
  const hostCanAsk = (requester: ToolRequester | undefined, turn: TurnState | undefined): boolean =>
    requester?.channel !== undefined &&
    !placeless(requester) &&
    (turn?.trigger ?? "user") === "user" &&
    (turn?.origin.group ?? null) === null;

  /**
   * The guard honours failMode itself; this covers the adapter's own mapping around it (and a
   * guard that could not even open): never a side effect unasked, as in the guard.
   */
  const decide = (event: BeforeToolCallEvent, ctx: ToolContext): BeforeToolCallResult | undefined | Promise<BeforeToolCallResult | undefined> => {
    try {
      return decideUnguarded(event, ctx);
    } catch (error) {
      logger.error(`before_tool_call mapping failed for ${event.toolName}; failing ${config.failMode}`, error);
      const channel = ctx.requester?.channel;
      let turn: TurnState | undefined;
      try {
        turn = currentTurn(ctx);
      } catch {
        // The failure may be the session directory's own: the turn is not known.
      }
      let shown: string | undefined;
      try {
        shown = heldCall(event.toolName, event.params).shown;
      } catch {
        // Arguments that cannot be written out: OpenClaw's prompt could not show the owner what
        // they would approve, so none is offered.
      }
      return toolCallResult(failSafeDecision(config.failMode, event.toolName, error, undefined, undefined, shown), {
        approvalSurface: shown !== undefined && hostCanAsk(ctx.requester, turn),
        slashCommands: channel !== undefined,
        pluginId,
        approvalWaitMs: config.approvalTtlSeconds * 1000,
        onResolution: (resolution) => logger.info(`owner approval for ${event.toolName} after a failure: ${resolution}`),
      });
    }
  };

  const decideUnguarded = (event: BeforeToolCallEvent, ctx: ToolContext): BeforeToolCallResult | undefined | Promise<BeforeToolCallResult | undefined> => {
    const sessionId = sessions.sessionIdFor(ctx) ?? "openclaw:no-session";
    const turn = sessions.turn(sessionId);
    const refusal = turn === undefined ? null : confirm(turn, ctx.requester?.senderIsOwner);
    if (refusal !== null) return { block: true, blockReason: `provenant: ${refusal}` };
    const workspaceDir = turn?.workspaceDir ?? workspaceOf(ctx.agentId);
    const guard = guardFor(workspaceDir);
    // Tool Search: the host fires this hook for a `tool_call` and again for the call it wraps.
    const parentId = calls.noteCall(sessionId, ctx.toolCallId, event.toolName);
    const call = {
      ...(ctx.toolCallId ? { id: ctx.toolCallId } : {}),
      tool: event.toolName,
      params: event.params,
      ...(parentId !== undefined ? { parentId } : {}),
    };
    const decision = guard.beforeToolCall(sessionId, call);
    if (decision.verdict !== "allow") logger.warn(`session ${sessionId}: ${decision.verdict} ${decision.tool} (${decision.rule}, context ${decision.taint})`);
    const channel = ctx.requester?.channel;
    const resultFor = (settled: Decision): BeforeToolCallResult | undefined => {
      if (settled.verdict === "allow") calls.noteAllowed(sessionId, ctx.toolCallId);
      if (settled !== decision) logger.info(`session ${sessionId}: ${settled.verdict} ${settled.tool} after the owner's answer in the console (${settled.rule})`);
      const askedAt = Date.now();
      return toolCallResult(settled, {
        approvalSurface: hostCanAsk(ctx.requester, turn),
        slashCommands: channel !== undefined,
        pluginId,
        approvalWaitMs: guard.config.approvalTtlSeconds * 1000,
        onResolution: (resolution) => {
          logger.info(`session ${sessionId}: owner approval for ${settled.tool}: ${resolution}`);
          if (resolution === "allow-once" || resolution === "allow-always") {
            calls.noteApproved(sessionId, ctx.toolCallId);
            if (settled.code !== undefined) inbox.answeredElsewhere(workspaceDir, settled.code);
          }
          // Cancelled for want of a place: for a while that channel account gets the approval
          // code instead.
          if (resolution === "cancelled" && ctx.requester?.channel !== undefined && Date.now() - askedAt < PLACELESS_CANCEL_MS) {
            surfacesWithoutApprovals.set(surfaceKey(ctx.requester), Date.now());
          }
        },
      });
    };
    if (decision.verdict !== "confirm") return resultFor(decision);
    const settled = inbox.settle({ guard, workspaceDir, sessionId, origin: ctx.sessionKey ?? `agent ${ctx.agentId ?? "main"}`, call, decision });
    if (!(settled instanceof Promise)) return resultFor(settled);
    return settled.then(resultFor).catch((error: unknown) => {
      logger.error(`session ${sessionId}: the console's answer for ${event.toolName} could not be applied; the call stays held`, error);
      return resultFor(decision);
    });
  };

  if (canWait) {
    api.registerTrustedToolPolicy({
      id: TRUSTED_POLICY_ID,
      description: "provenant: taint policy, memory-file staging and gates for every tool call",
      evaluate: decide,
    });
  } else {
    logger.warn("this OpenClaw has no trusted tool policies; the tool gate runs as an ordinary before_tool_call hook");
    api.on("before_tool_call", decide, { priority: FIRST });
  }

  /**
   * Tool output enters the guard once per call. The tool-result middleware sees it before the
   * model does and can hand the model the guard's version (forged `[MSG_AUTH:` markers made
   * inert); `after_tool_call` is the fallback for results the middleware did not see (OpenClaw
   * does not await it, but calls it inline, and the handler is synchronous).
   */
  const seenByMiddleware = new Set<string>();
  const toolOutput = (sessionId: string, agentId: string | undefined, toolCallId: string | undefined, tool: string, output: unknown, failed: boolean, ranOn: string | undefined) => {
    const parentId = calls.parentOf(sessionId, toolCallId, tool);
    const ran = calls.ran(sessionId, toolCallId, failed);
    return guardFor(sessions.turn(sessionId)?.workspaceDir ?? workspaceOf(agentId)).afterToolCall(sessionId, {
      ...(toolCallId ? { id: toolCallId } : {}),
      tool,
      output,
      ...(parentId !== undefined ? { parentId } : {}),
      ...(ran !== undefined ? { ran } : {}),
      ...(ranOn !== undefined ? { ranOn } : {}),
    });
  };

  if (typeof api.registerAgentToolResultMiddleware === "function") {
    api.registerAgentToolResultMiddleware(
      (event, ctx) => {
        const sessionId = sessions.sessionIdFor(ctx);
        if (sessionId === undefined) return undefined;
        seenByMiddleware.add(`${sessionId}\u0000${event.toolCallId}`);
        const outcome = toolOutput(sessionId, ctx.agentId, event.toolCallId, event.toolName, event.result.content, event.isError === true, pairedNodeOf(event.result));
        // A call to a tool this turn's list left out never reaches a hook; the host answers
        // "Tool x not found". Say instead what happened and what the owner can do.
        const hidden = sessions.turn(sessionId)?.hidden;
        if (event.isError === true && hidden?.includes(event.toolName) === true && calls.ran(sessionId, event.toolCallId, true) === false) {
          return { result: { ...event.result, content: [{ type: "text", text: restrictedNotice(event.toolName) }] } };
        }
        if (outcome.output === event.result.content && outcome.notice === undefined) return undefined;
        const content = outcome.output as typeof event.result.content;
        // What the guard did after the call (a signed file put back) is told beside its output.
        return { result: { ...event.result, content: outcome.notice === undefined ? content : [...content, { type: "text", text: outcome.notice }] } };
      },
      { runtimes: [...TOOL_RESULT_RUNTIMES] },
    );
  }

  api.on("after_tool_call", (event, ctx) => {
    try {
      const sessionId = sessions.sessionIdFor(ctx);
      if (sessionId === undefined) return;
      const toolCallId = ctx.toolCallId ?? event.toolCallId;
      if (toolCallId !== undefined && seenByMiddleware.delete(`${sessionId}\u0000${toolCallId}`)) return;
      toolOutput(sessionId, ctx.agentId, toolCallId, event.toolName, event.error !== undefined ? { error: event.error } : event.result, event.error !== undefined, pairedNodeOf(event.result));
    } catch (error) {
      taintUnread(ctx, "a tool result the plugin could not read", error);
    }
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
      // The guard's view of outbound text: fabricated tool-result blocks removed, and the taint
      // header first in developer mode.
      const outcome = guardFor(turn.workspaceDir).beforeResponse(turn.sessionId, event.content);
      return outcome.text === event.content ? undefined : { content: outcome.text };
    },
    { priority: FIRST },
  );

  api.on("message_received", (event, ctx) => {
    const sessionKey = ctx.sessionKey ?? event.sessionKey;
    if (sessionKey !== undefined && event.senderId !== undefined) sessions.noteInboundSender(sessionKey, event.senderId, ctx.channelId);
  });

  api.on("subagent_spawned", (event, ctx) => {
    if (ctx.requesterSessionKey !== undefined) sessions.noteSubagent(event.childSessionKey, ctx.requesterSessionKey);
  });
  api.on("subagent_ended", (event) => sessions.forgetSubagent(event.targetSessionKey));
  api.on("session_end", (event, ctx) => sessions.forget(event.sessionId, ctx.sessionKey ?? event.sessionKey));

  /**
   * During a turn the command applies to it directly. Between turns (the usual case: the owner
   * reads a block, then answers) it runs as a turn of its own whose text is the `.approve` /
   * `.reset-trust` message, which the guard processes exactly as if the owner had typed that.
   */
  const executeCommand = (ctx: CommandContext, command: ValidOwnerCommand, isOwner: boolean | null) => {
    const sessionId = sessions.sessionIdFor(ctx);
    if (sessionId === undefined) return null;
    const turn = sessions.turn(sessionId);
    const workspaceDir = turn?.workspaceDir ?? workspaceOf(ctx.agentId);
    const guard = guardFor(workspaceDir);
    // During a turn, or between turns of a conversation the guard holds (it then applies the
    // command to the turn that comes next: the owner's retry), the command goes straight to it.
    if ((turn !== undefined && turn.phase !== "ended") || guard.taint(sessionId) !== undefined) {
      const scope = command.kind === "approve" && (command.scope?.kind === "call" || command.scope?.kind === "turn") ? command.scope.kind : undefined;
      if (command.kind !== "approve") return guard.resetTrust(sessionId, command.level, isOwner);
      const outcome = guard.approve(sessionId, command.tool, command.code, command.minutes, isOwner, scope);
      if (outcome.accepted) inbox.answeredElsewhere(workspaceDir, command.code);
      return outcome;
    }
    const started = guard.beginTurn({
      sessionId,
      agentId: ctx.agentId ?? null,
      sender: { id: ctx.senderId ?? null, isOwner },
      provider: null,
      text: dotForm(command),
    });
    guard.endTurn(sessionId);
    if (started.command?.accepted === true && command.kind === "approve") inbox.answeredElsewhere(workspaceDir, command.code);
    return started.command;
  };
  for (const command of ownerSlashCommands({
    execute: executeCommand,
    senderIsOwner: (ctx) => commandSenderIsOwner(ctx, ownerIds),
    noteUnprovenOwner: (ctx) =>
      logger.warn(
        `/${ctx.commandBody.trim().split(/\s+/)[0]?.replace(/^\//, "") ?? "command"} from sender ${JSON.stringify(ctx.senderId ?? null)} on ${ctx.channel} ` +
          `(gateway scopes: ${JSON.stringify(ctx.gatewayClientScopes ?? null)}) is not proven to come from the owner; add the sender id to ownerIds if it is yours`,
      ),
  })) {
    api.registerCommand(command);
  }

  api.registerTool(
    ownerToolFactory((ctx) => {
      const sessionId = sessions.sessionIdFor(ctx);
      if (sessionId === undefined) return null;
      return { sessionId, guard: guardFor(sessions.turn(sessionId)?.workspaceDir ?? ctx.workspaceDir ?? workspaceOf(ctx.agentId)) };
    }),
    { names: [...OWNER_TOOL_NAMES] },
  );

  function currentTurn(ctx: AgentContext): TurnState | undefined {
    const sessionId = sessions.sessionIdFor(ctx);
    return sessionId === undefined ? undefined : sessions.turn(sessionId);
  }
}

/**
 * OpenClaw gives the owner bit only to its own bundled commands. For ours: the bit when given,
 * else a configured owner id, else a gateway operator with admin scope (who can rewrite the whole
 * configuration, this plugin included), else unknown.
 */
function commandSenderIsOwner(ctx: CommandContext, ownerIds: readonly string[]): boolean | null {
  if (ctx.senderIsOwner !== undefined) return ctx.senderIsOwner;
  if (ctx.senderId !== undefined && ownerIds.includes(ctx.senderId)) return true;
  if (ctx.gatewayClientScopes?.includes("operator.admin")) return true;
  return null;
}

/** What the model (and through it the owner) is told about a call to a tool provenant took off its list. */
export function restrictedNotice(tool: string): string {
  return (
    `provenant: '${tool}' is restricted in this conversation because of the content it holds, so it was taken off the tool list; ` +
    `no approval is possible. The owner can clear the conversation's taint with /reset_trust (or .reset-trust) and ask again.`
  );
}

/** Where OpenClaw keeps the default agent's workspace when neither a hook nor the host says. */
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

/**
 * The paired node a tool's result says it ran on: OpenClaw's `exec` on a node (`host: "node"`,
 * or a session or configuration whose default host is a node) names it in the result's details,
 * which the tool writes, not the command.
 */
function pairedNodeOf(result: unknown): string | undefined {
  const details = result !== null && typeof result === "object" ? (result as { details?: unknown }).details : undefined;
  const nodeId = details !== null && typeof details === "object" ? (details as { nodeId?: unknown }).nodeId : undefined;
  return typeof nodeId === "string" && nodeId.trim() !== "" ? `the paired node ${JSON.stringify(nodeId.slice(0, 200))}` : undefined;
}
