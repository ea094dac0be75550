import { randomBytes as nodeRandomBytes } from "node:crypto";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ApprovalCodes, type ApprovalScope, type HeldCall } from "./core/approval-codes.js";
import { escapeText, heldCall } from "./core/call-text.js";
import { decisionArguments } from "./core/argument-decision.js";
import { ARGUMENT_PROVENANCE_RULE, checkArguments } from "./core/argument-gate.js";
import { NO_AUDIT, type AuditSink } from "./core/audit-sink.js";
import { policyForAgent, type ResolvedConfig } from "./core/config.js";
import type { Decision, DecisionProvenance } from "./core/decision.js";
import { developerHeader } from "./core/developer-header.js";
import type { GateCommand, ToolGate } from "./core/gate.js";
import { gateFiles } from "./core/gate-files.js";
import { commandFiles } from "./core/command-files.js";
import { readExec } from "./core/exec-trust.js";
import { classifyInitialTrust } from "./core/initial-trust.js";
import type { HostFiles } from "./core/file-trust.js";
import { SILENT_LOGGER, type Logger } from "./core/logger.js";
import { parseOwnerCommand } from "./core/owner-commands.js";
import { ProvenanceGraph, type NodeKind, type ProvenanceNode } from "./core/provenance-graph.js";
import { CallOutputTrust } from "./guard-call-output.js";
import { MemoryFileLabelStore, WorkspaceFileLabelStore, type FileLabelStore } from "./state/file-label-store.js";
import { ForeignWordsStore, readHead } from "./state/foreign-words-store.js";
import { extractPatchTargets } from "./sig/patch-targets.js";
import type { RestoredFile } from "./sig/restore-signed.js";
import { isMessageToOwner } from "./core/message-recipients.js";
import { ABOUT_CALLER_UNLESS_NAMED, CROSS_SESSION_TOOLS, sessionContentLevel, sessionReferences, showsUnnamedRun } from "./core/session-content.js";
import { savedOutputFiles } from "./core/saved-outputs.js";
import { hostCatalogue, type HostCatalogue } from "./core/host-catalogue.js";
import { DecidedCalls } from "./core/decided-calls.js";
import { TOOL_CALL_TOOL } from "./core/tool-search.js";
import { ToolPolicy } from "./core/tool-policy.js";
import { lessTrusted, minTrust, type TrustLevel } from "./core/trust-levels.js";
import { ValueProvenance } from "./core/value-provenance.js";
import { resolveGuardConfig, type GuardConfig } from "./guard-config.js";
import { InboundAuthenticator, type InboundKind } from "./auth/inbound-authenticator.js";
import { IntentScopeGate } from "./auth/intent-scope-gate.js";
import { loadKeyFile } from "./auth/key-file.js";
import { KeyRing } from "./auth/key-ring.js";
import type { InputProvenance } from "./auth/requester.js";
import type { ToolResultSeal } from "./auth/tool-result-mac.js";
import { DeferredAuditSink } from "./ledger/deferred-sink.js";
import { defaultLedgerPath, openLedger, type Ledger } from "./ledger/index.js";
import { SigRuntime } from "./sig/runtime.js";
import { HostProtectedFiles } from "./state/host-protected-files.js";
import type { WorkspaceMemoryFiles } from "./state/workspace-memory-files.js";
import { neutraliseEnvelopes } from "./auth/envelope-markers.js";
import { boundedWellFormed, TOOL_OUTPUT_LIMITS, TOOL_PARAMS_LIMITS } from "./core/input-limits.js";
import { displayBlock, displayText } from "./core/safe-display.js";
import { describeFailure, failSafeDecision } from "./guard-fail-safe.js";
import { FileWatermarkStore, type WatermarkStore } from "./state/watermark-store.js";
import { appendTurnGraph } from "./state/turn-graph-log.js";

/** Who sent a turn and through what, as the framework reports it. */
export interface TurnInput {
  readonly sessionId: string;
  /**
   * The host's other name for this session, the one its tools use to name it (OpenClaw's session
   * key): `sessions_history {sessionKey}` and sub-agents' `spawnedBy` are matched against it.
   */
  readonly sessionKey?: string | null;
  readonly agentId?: string | null;
  readonly sender: { readonly id?: string | null; readonly isOwner?: boolean | null };
  /** The channel (telegram, discord, ...); absent for system events such as cron. */
  readonly provider?: string | null;
  readonly group?: string | null;
  readonly spawnedBy?: string | null;
  readonly text: string;
  /** The channel's message id, used to name the signed owner message; the turn number by default. */
  readonly messageId?: string;
  /** A new conversation (`/new`, `/reset`): a fresh trust boundary, the watermark is cleared. */
  readonly freshSession?: boolean;
  /**
   * What kind of inbound this is, for message authentication: a channel message, a system event
   * (cron, heartbeat) or another agent's message. Default: no provider → system, `spawnedBy` or
   * `inputProvenance` → inter-agent, else channel.
   */
  readonly kind?: InboundKind;
  /** A system turn's job (cron id): its declared action classes bound the turn's scope. */
  readonly jobId?: string | null;
  /** An inter-agent turn's evidence of who asked: the framework's provenance, else the system prompt's stamp. */
  readonly inputProvenance?: InputProvenance | null;
  readonly systemPrompt?: string;
}

/** What message authentication made of a turn. */
export interface TurnAuthentication {
  readonly accepted: boolean;
  /** human, agent, system or unsigned; null when refused. */
  readonly source: string | null;
  readonly scope: readonly string[];
  /** For the sender: generic, never which check failed (that goes to our log). */
  readonly publicReason?: string;
}

export interface CommandOutcome {
  readonly kind: "approve" | "reset-trust";
  readonly accepted: boolean;
  readonly message: string;
}

export interface TurnStart {
  readonly turnId: string;
  readonly taint: TrustLevel;
  readonly command: CommandOutcome | null;
  /** The text the model may see: the verified message without its envelope, or "" when refused. */
  readonly text: string;
  /** Present when message authentication is on. */
  readonly authentication?: TurnAuthentication;
}

export interface ToolResultOutcome {
  readonly taint: TrustLevel;
  /** The output as the model should see it: any `[MSG_AUTH:` marker in it made inert. */
  readonly output: unknown;
  /** The result's MAC (RFC-001 tool-result HMAC), when message authentication is on. */
  readonly seal?: ToolResultSeal | null;
  /** What the guard did after the call that the model should be told (signed files it put back). */
  readonly notice?: string;
}

export interface ResponseOutcome {
  readonly text: string;
  readonly taint: TrustLevel;
  /** `[G]` claims that cite no verified tool result. */
  readonly ungroundedClaims?: readonly string[];
  /** Fabricated tool-result blocks removed from the model's text. */
  readonly fabricatedResultsRemoved?: number;
}

export interface ToolCallInput {
  readonly id?: string;
  readonly tool: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** The host call that made this one (OpenClaw's Tool Search `tool_call` or code bridge). */
  readonly parentId?: string;
}

export interface ToolResultInput {
  readonly id?: string;
  readonly tool: string;
  readonly output: unknown;
  /** The call's arguments, when the adapter has them (else those seen at `beforeToolCall` for the same id). */
  readonly params?: Readonly<Record<string, unknown>>;
  readonly parentId?: string;
  /**
   * The host's word on whether the call ran: true when the owner approved a held call through
   * the host's own prompt, false when the host reports it never ran. Absent: the guard's record.
   */
  readonly ran?: boolean;
  /**
   * How long the call ran, as the host measured it (Claude Code's `duration_ms`): when this
   * process did not see the call decided, what the call wrote changed after now less this.
   */
  readonly durationMs?: number;
  /**
   * The machine the host says the call ran on, when it is not this one (OpenClaw's `exec` on a
   * paired node names the node in its result): the files it read there are not those this
   * machine's labels describe.
   */
  readonly ranOn?: string;
  /**
   * The process that reported the result for the host, when it is not this one (a Claude Code
   * hook talking to the guard service): the host is its nearest ancestor already running when the
   * call began, and the processes the call left running descend from that host.
   */
  readonly reportedBy?: number;
}

export interface GuardDependencies {
  readonly config: ResolvedConfig;
  readonly watermarks: WatermarkStore;
  /** Memory-file protection: which targets are protected, and where blocked writes are staged. */
  readonly memoryFiles: Pick<WorkspaceMemoryFiles, "protectedTarget" | "stage">;
  /** Checks before the taint policy, in order: verification gate, mutation gate, intent scope. */
  readonly gates?: readonly ToolGate[];
  /** Prompt signing: told of every turn and every owner message (its gates are in `gates`). */
  readonly signing?: SigRuntime;
  /** Message authentication, and the intent-scope gate it sets each turn's scope on (also in `gates`). */
  readonly auth?: { readonly authenticator: InboundAuthenticator; readonly scopeGate: IntentScopeGate };
  readonly audit?: AuditSink;
  readonly logger?: Logger;
  readonly now?: () => number;
  readonly randomBytes?: (n: number) => Uint8Array;
  /** Where relative tool paths point (the agent's workspace); default `config.workspaceDir`, else the current directory. */
  readonly workspaceDir?: string;
  /** Labels of files written under taint (default: held in memory only). */
  readonly fileLabels?: FileLabelStore;
  /**
   * Words of messages someone else wrote that the host filed as the owner's, looked for in the
   * files the host puts into the prompt (default: none kept).
   */
  readonly foreignWords?: ForeignWordsStore;
  /** The home directory a `~` in a tool's path names (the host's: `os.homedir()` by default). */
  readonly homeDir?: string;
  /** What the host keeps on disk: where it runs from (trusted reads), its configured log files (untrusted): see FileTrustRules. */
  readonly hostFiles?: HostFiles;
  /** Runs once when the guard closes, after the watermarks are flushed (closes the ledger it opened). */
  readonly onClose?: () => void;
  /**
   * Told of each turn as its graph is sealed (the console draws them). A failure here is logged
   * and changes no decision.
   */
  readonly onTurnSealed?: (sessionId: string, graph: ProvenanceGraph, endedAt: Date) => void;
}

interface SessionState {
  readonly sessionId: string;
  agentId: string | null;
  turnSeq: number;
  turnId: string;
  graph: ProvenanceGraph;
  senderIsOwner: boolean | null;
  senderId: string | null;
  group: string | null;
  provider: string | null;
  iterations: number;
  awaitingModel: boolean;
  turnBlocked: boolean;
  taintReason: string;
  /** Which owner messages and tool outputs each value came from (argument provenance). */
  readonly values: ValueProvenance;
  /** Arguments of calls not answered yet, by call id: what a call's output is worth can depend on them. */
  readonly callParams: Map<string, Readonly<Record<string, unknown>>>;
  /** The least trusted output any `exec` of this session may produce: `process` hands back background output. */
  execLevel: TrustLevel;
  /** When each call not answered yet was decided (wall-clock ms): what it wrote changed after. */
  readonly callStarts: Map<string, number>;
  /** When the session's last command below trusted began (see CallOutputTrust.recordWrites). */
  backgroundSince: number | null;
  /** The turn's message as the host gave it: kept as someone else's words when it turns out to be theirs. */
  turnText: string;
}

/**
 * The one pipeline. Adapters translate their framework's events into these calls; everything
 * that decides lives in core/, auth/, sig/ and is composed here in the order DESIGN.md fixes:
 * gates (verification, mutation, intent scope) → memory-file staging → taint policy → approvals.
 *
 * Every public method honours `failMode`: an internal error is logged with its stack, written to
 * the audit sink, and then either lets the agent go on untracked ("open", the default) or stops
 * the call ("closed").
 */
export class Guard {
  readonly config: ResolvedConfig;
  private readonly sessions = new Map<string, SessionState>();
  /** The host's session keys, to the guard's session ids. */
  private readonly sessionKeys = new Map<string, string>();
  private readonly policies = new Map<string, ToolPolicy>();
  private readonly approvals: ApprovalCodes;
  private readonly audit: AuditSink;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly gates: readonly ToolGate[];
  private readonly calls = new DecidedCalls();
  private readonly home: string;
  private readonly outputTrust: CallOutputTrust;
  private readonly catalogue: HostCatalogue;
  private readonly workspaceDir: string;
  private readonly fileLabels: FileLabelStore;

  constructor(private readonly deps: GuardDependencies) {
    this.home = deps.homeDir ?? homedir();
    this.workspaceDir = resolve(deps.workspaceDir ?? deps.config.workspaceDir ?? process.cwd());
    this.fileLabels = deps.fileLabels ?? new MemoryFileLabelStore();
    this.catalogue = hostCatalogue(deps.config.host);
    this.outputTrust = new CallOutputTrust({
      config: deps.config,
      workspaceDir: this.workspaceDir,
      home: this.home,
      fileLabels: this.fileLabels,
      catalogue: this.catalogue,
      ...(deps.hostFiles !== undefined ? { hostFiles: deps.hostFiles } : {}),
    });
    this.config = deps.config;
    this.audit = deps.audit ?? NO_AUDIT;
    this.logger = deps.logger ?? SILENT_LOGGER;
    this.now = deps.now ?? Date.now;
    this.gates = deps.gates ?? [];
    this.approvals = new ApprovalCodes({
      ttlMs: deps.config.approvalTtlSeconds * 1000,
      maxWrongAttempts: deps.config.maxWrongApprovalAttempts,
      randomBytes: deps.randomBytes ?? nodeRandomBytes,
    });
    const overrides = this.policy(null).ownerOverrides();
    if (Object.keys(deps.config.toolOutputTaints).length > 0) {
      this.logger.info(`Tool output taint overrides: ${JSON.stringify(deps.config.toolOutputTaints)}`);
    }
    if (Object.keys(overrides).length > 0) this.logger.info(`Tool call overrides: ${JSON.stringify(overrides)}`);
  }

  /**
   * The embedded default: state in the workspace's `.provenance/` (watermarks, staged writes).
   * Validates the configuration first; a ConfigError leaves nothing half-started.
   */
  static open(options: {
    readonly config?: unknown;
    readonly workspaceDir: string;
    readonly logger?: Logger;
    /** Where decisions are recorded. Default: the workspace's ledger, `.provenance/ledger.jsonl`. */
    readonly audit?: AuditSink;
    readonly gates?: readonly ToolGate[];
    readonly now?: () => number;
    /** Message-authentication keys (else `auth.keyFile`, else a key generated in memory now). */
    readonly authKeys?: KeyRing;
    /** The home directory a `~` names, and under which the host keeps its own protected files (default `os.homedir()`). */
    readonly homeDir?: string;
    /** Append each sealed turn's graph to the workspace's `turn-graphs.jsonl` (default true). */
    readonly turnGraphs?: boolean;
    /** What the host keeps on disk: where it runs from, its configured log files (see FileTrustRules). */
    readonly hostFiles?: HostFiles;
  }): Guard {
    const logger = options.logger ?? SILENT_LOGGER;
    const config = Guard.resolve(options.config, logger);
    let ledger: Ledger | undefined;
    let deferred: DeferredAuditSink | undefined;
    if (options.audit === undefined) {
      ledger = openLedger(defaultLedgerPath(options.workspaceDir), {
        onTornTail: (tail) => logger.warn(`ledger: an interrupted append was cut off (${JSON.stringify(tail)})`),
      });
      deferred = new DeferredAuditSink(ledger, (error) => logger.error("ledger append failed", error), options.now ?? Date.now);
    }
    const audit: AuditSink = options.audit ?? (deferred as DeferredAuditSink);
    const watermarks = new FileWatermarkStore(options.workspaceDir, {
      onCorrupt: (error) => {
        logger.error(error.message);
        audit.record("META", { kind: "state-corrupt", file: error.file, movedTo: error.movedTo, detail: error.detail });
      },
      log: (message) => logger.warn(message),
    });
    audit.record("BOOT", { kind: "guard-open", workspace: options.workspaceDir, failMode: config.failMode });
    const now = options.now ?? Date.now;
    const signing = new SigRuntime({ projectRoot: options.workspaceDir, config: config.sig, clock: now, audit });
    const auth = Guard.openAuth(config, audit, now, options.authKeys);
    return new Guard({
      signing,
      ...(auth ? { auth } : {}),
      config,
      watermarks,
      memoryFiles: new HostProtectedFiles(options.workspaceDir, hostCatalogue(config.host), options.homeDir ?? homedir(), config.memoryFiles),
      ...(options.homeDir !== undefined ? { homeDir: options.homeDir } : {}),
      ...(options.hostFiles !== undefined ? { hostFiles: options.hostFiles } : {}),
      ...(options.turnGraphs !== false ? { onTurnSealed: (sessionId: string, graph: ProvenanceGraph, endedAt: Date) => appendTurnGraph(options.workspaceDir, sessionId, graph, endedAt) } : {}),
      workspaceDir: options.workspaceDir,
      fileLabels: new WorkspaceFileLabelStore(options.workspaceDir),
      foreignWords: new ForeignWordsStore(options.workspaceDir, (detail, movedTo) => {
        logger.error(`the record of messages someone else wrote is corrupt (${detail}); moved aside to ${movedTo}; every file in the host's prompt is labelled untrusted once`);
        audit.record("META", { kind: "state-corrupt", file: "foreign-words.json", movedTo, detail });
      }),
      audit,
      logger,
      ...(ledger && deferred
        ? {
            onClose: () => {
              deferred.flush();
              ledger.close();
            },
          }
        : {}),
      gates: [signing.verificationGate, signing.mutationGate, ...(auth ? [auth.scopeGate] : []), ...(options.gates ?? [])],
      now,
    });
  }

  /**
   * Message authentication, when `auth.mode` (or an agent's) is not `off`. The key is the one
   * given, else the key file (mode 0600), else generated now and held in memory only, so it
   * rotates with every restart (RFC-001's default).
   */
  private static openAuth(
    config: GuardConfig,
    audit: AuditSink,
    now: () => number,
    keys: KeyRing | undefined,
  ): { authenticator: InboundAuthenticator; scopeGate: IntentScopeGate } | undefined {
    const modes = [config.auth.mode, ...Object.values(config.auth.agents)];
    if (modes.every((m) => m === "off")) return undefined;
    const ring =
      keys ??
      (config.auth.keyFile !== undefined ? loadKeyFile(config.auth.keyFile) : KeyRing.generate(nodeRandomBytes, new Date(now()).toISOString()));
    const authenticator = new InboundAuthenticator({ config: config.auth, keys: ring, random: nodeRandomBytes, audit });
    const policy = new ToolPolicy(config, hostCatalogue(config.host));
    const scopeGate = new IntentScopeGate((tool) => policy.actionClass(tool), {
      mode: config.auth.mode === "warn" ? "warn" : "enforce",
      agentEscalation: config.auth.agentEscalation,
      audit,
    });
    return { authenticator, scopeGate };
  }

  /** Validates a raw configuration (throws ConfigError) and logs its warnings once. */
  static resolve(config: unknown, logger: Logger = SILENT_LOGGER): GuardConfig {
    const { config: resolved, warnings } = resolveGuardConfig(config);
    for (const warning of warnings) logger.warn(warning);
    return resolved;
  }

  beginTurn(turn: TurnInput): TurnStart {
    return this.guarded(
      "beginTurn",
      turn.sessionId,
      () => this.startTurn({ ...turn, text: boundedWellFormed(turn.text, TOOL_PARAMS_LIMITS, "the turn's text") }),
      (error): TurnStart => {
        // A turn that could not be classified is nobody's instruction: whatever the calls after
        // it try is decided at untrusted, and its text goes on without any authority.
        const s = this.raiseToUntrusted(turn.sessionId, `the turn could not be processed (${describeFailure(error)})`);
        return { turnId: s?.turnId ?? "", taint: "untrusted", command: null, text: turn.text };
      },
    );
  }

  /** Layer 1: the tools the model may be shown now. Restricted tools are removed; confirm-mode tools stay, so a call earns an approval code. */
  toolsFor(sessionId: string, tools: readonly string[]): string[] {
    return this.guarded(
      "toolsFor",
      sessionId,
      () => {
        const s = this.session(sessionId);
        if (s.turnBlocked) return [];
        const policy = this.policy(s.agentId);
        const hidden = new Set<string>();
        for (const gate of this.gates) for (const t of gate.hiddenTools?.(sessionId, tools) ?? []) hidden.add(t);
        const taint = s.graph.maxTaint;
        return tools.filter((tool) => {
          if (hidden.has(tool)) return false;
          const { mode } = policy.modeFor(tool, taint, { messageToOwner: false });
          return mode !== "restrict" || this.approvals.isToolApproved(sessionId, tool, s.turnId, this.now());
        });
      },
      () => (this.config.failMode === "closed" ? [] : [...tools]),
    );
  }

  /**
   * Layer 1 before a turn has begun (a framework that builds the prompt before it knows the
   * sender's owner status): the tools to show, from the session's current taint or, for a session
   * this process has not seen, its persisted watermark, and the sender's classification when the
   * owner status is known. Changes no state; layer 2 still decides every call.
   */
  previewTools(
    turn: Pick<TurnInput, "sessionId" | "agentId" | "sender" | "provider" | "spawnedBy">,
    tools: readonly string[],
  ): string[] {
    if (this.sessions.has(turn.sessionId)) return this.toolsFor(turn.sessionId, tools);
    return this.guarded(
      "previewTools",
      turn.sessionId,
      () => {
        let taint: TrustLevel = this.deps.watermarks.get(turn.sessionId)?.level ?? "trusted";
        if (turn.sender.isOwner !== null && turn.sender.isOwner !== undefined) {
          const initial = classifyInitialTrust({ provider: turn.provider, spawnedBy: turn.spawnedBy, senderIsOwner: turn.sender.isOwner, senderId: turn.sender.id });
          taint = minTrust(taint, initial.level);
        }
        const policy = this.policy(turn.agentId ?? null);
        return tools.filter((tool) => policy.modeFor(tool, taint, { messageToOwner: false }).mode !== "restrict");
      },
      () => (this.config.failMode === "closed" ? [] : [...tools]),
    );
  }

  /** Layer 2: the decision for one tool call, made just before it would run. */
  beforeToolCall(sessionId: string, call: ToolCallInput): Decision {
    return this.guarded(
      "beforeToolCall",
      sessionId,
      () => {
        const s = this.session(sessionId);
        // The disk's clock, not the guard's (which tests set): files' change times are compared with it.
        if (call.id !== undefined) s.callStarts.set(call.id, Date.now());
        const params = boundedWellFormed(call.params, TOOL_PARAMS_LIMITS, `${displayText(call.tool)} parameters`);
        const bounded = params === call.params ? call : { ...call, params };
        // A Tool Search call is decided as the call it wraps, once (see core/decided-calls.ts).
        const next = this.calls.toDecide(sessionId, bounded);
        if (next.kind === "decided-as-parent") {
          if (call.id !== undefined) s.callParams.set(call.id, bounded.params);
          this.audit.record("CLAIM", { kind: "decided-as-parent", sessionId, callId: call.id ?? null, parentId: next.parentId, tool: call.tool });
          return this.displaySafe({ tool: call.tool, verdict: "allow", taint: s.graph.maxTaint, rule: "decided-as-parent", reason: `decided as the call ${next.parentId} that made it`, provenance: null });
        }
        const decision = this.displaySafe(this.decide(s, { ...bounded, ...next.call }));
        // Whatever the verdict: a call held now may run once approved, and holding is harmless.
        this.outputTrust.holdWindows(next.call.tool, next.call.params);
        this.calls.decided(sessionId, bounded, next.call, decision.verdict);
        // The ledger keeps why, not the live approval code: it is a file tools can read.
        const { code, ...kept } = decision;
        const reason = code === undefined ? kept.reason : kept.reason.replaceAll(code, "<code>");
        this.audit.record("CLAIM", { kind: "decision", sessionId, callId: call.id ?? null, ...kept, reason, codeIssued: code !== undefined });
        return decision;
      },
      (error) => this.failedDecision(sessionId, call, error),
    );
  }

  /**
   * A tool's response enters the context at the tool's output trust, which may raise the taint.
   * With message authentication on, the result is sealed with its MAC, and any envelope marker
   * in it is made inert (the returned `output` is what the model should see).
   */
  afterToolCall(sessionId: string, result: ToolResultInput): ToolResultOutcome {
    return this.guarded(
      "afterToolCall",
      sessionId,
      (): ToolResultOutcome => {
        const s = this.session(sessionId);
        this.continueIfEnded(s);
        result = {
          ...result,
          output: boundedWellFormed(result.output, TOOL_OUTPUT_LIMITS, `${displayText(result.tool)} output`),
          ...(result.params !== undefined ? { params: boundedWellFormed(result.params, TOOL_PARAMS_LIMITS, `${displayText(result.tool)} parameters`) } : {}),
        };
        s.awaitingModel = true;
        const remembered = result.id !== undefined ? s.callParams.get(result.id) : undefined;
        // Kept for the turn (cleared at its start): a host may report the same result twice (OpenClaw: its result middleware, then after_tool_call), and the second report must read the same arguments.
        const meaning = this.calls.result(sessionId, result);
        let notice: string | undefined;
        if (!meaning.ran) {
          // A held or blocked call's "result" is the host's refusal, not anything the tool said.
          this.audit.record("CLAIM", { kind: "result-of-call-not-run", sessionId, callId: result.id ?? null, tool: result.tool });
        } else {
          // A Tool Search wrapper's result is its target's output, with the target's arguments.
          const tool = meaning.tool;
          const params = (result.tool === TOOL_CALL_TOOL ? remembered : (result.params ?? remembered)) ?? {};
          const carried = this.crossSessionContent(sessionId, { ...result, tool }, params) ?? this.outputTrust.judge(tool, params, s, result.ranOn);
          const byTool = minTrust(this.policy(s.agentId).outputTaint(tool), carried?.level ?? "trusted");
          const trust = meaning.atMost === undefined ? byTool : minTrust(byTool, meaning.atMost);
          // A file the call wrote holds what the call worked on: it is labelled at the turn's taint
          // or at what the call brought in, whichever is worse (`curl <page> > notes.md` in a trusted
          // turn saves the page, not the owner's words).
          const started = (result.id !== undefined ? s.callStarts.get(result.id) : undefined) ?? (result.durationMs !== undefined ? Date.now() - result.durationMs : null);
          // Signed files the call changed are put back first, so that the window recordWrites
          // opens covers them, and then vouched for: a second report of the call leaves them be.
          const restored = this.restoreSignedFiles(tool, started);
          const at = new Date(this.now());
          for (const problem of this.outputTrust.recordWrites(s, minTrust(s.graph.maxTaint, trust), tool, params, at, started, result.reportedBy, result.output)) {
            this.logger.warn(`session ${sessionId}: ${problem}`);
            this.audit.record("CLAIM", { kind: "changed-files-not-labelled", sessionId, tool, detail: problem });
          }
          // Where the host saved the whole output it showed only the start of: the rest is the same output.
          this.outputTrust.labelSavedOutputs(s, trust, tool, savedOutputFiles(result.output), at, started);
          notice = this.signedFilesRestored(s, tool, restored);
          this.calls.innerResult(sessionId, result.parentId, trust);
          const before = s.graph.maxTaint;
          const label = carried === null ? `${tool} response` : `${tool} response: ${carried.reason}`;
          if (this.enter(s, "tool", label, trust, tool, { tool })) {
            this.audit.record("CLAIM", { kind: "taint-escalated", sessionId, turnId: s.turnId, from: before, to: s.graph.maxTaint, by: tool });
          }
          if (this.tracesValues()) {
            const structured = this.config.structuredToolOutputs.includes(tool);
            s.values.observe({ id: result.id ?? `${s.turnId}/${tool}`, kind: "tool", tool, trust, ...(structured ? { structured } : {}) }, result.output);
          }
        }
        const told = notice === undefined ? {} : { notice };
        const auth = this.deps.auth?.authenticator;
        if (auth === undefined) return { taint: s.graph.maxTaint, output: result.output, ...told };
        const seal = auth.macToolResult(sessionId, result.tool, result.output);
        const check = auth.verifyToolResult(sessionId, result.tool, result.output, seal);
        if (!check.ok) this.logger.warn(`session ${sessionId}: ${result.tool} result did not verify (${check.check})`);
        return { taint: s.graph.maxTaint, output: mapStrings(result.output, (t) => auth.neutraliseEnvelopes(t)), seal, ...told };
      },
      (error) => {
        const failure = describeFailure(error);
        this.raiseToUntrusted(sessionId, `${displayText(result.tool)} response could not be processed (${failure})`);
        return { taint: "untrusted" as const, output: this.failedOutput(result.output, failure) };
      },
    );
  }

  /** The outbound text, with the taint header first when developer mode is on. */
  beforeResponse(sessionId: string, text: string): ResponseOutcome {
    return this.guarded(
      "beforeResponse",
      sessionId,
      (): ResponseOutcome => {
        const s = this.session(sessionId);
        if (!s.graph.sealed) s.graph.add("output", "response", s.graph.maxTaint);
        const taint = s.graph.maxTaint;
        let out = text;
        let extra: Pick<ResponseOutcome, "ungroundedClaims" | "fabricatedResultsRemoved"> = {};
        const auth = this.deps.auth?.authenticator;
        if (auth !== undefined) {
          // Only real tool-response positions carry tool results; the model's own text never does.
          const clean = auth.sanitiseModelText(sessionId, text);
          const claims = auth.checkGroundedClaims(sessionId, clean.text);
          out = clean.text;
          extra = { fabricatedResultsRemoved: clean.removed, ungroundedClaims: claims.flagged.map((f) => `${f.tag}:${f.problem}`) };
        }
        if (this.config.developerMode) {
          const impacted = this.deps.watermarks.get(sessionId)?.lastImpactedTool ?? null;
          out = `${developerHeader(taint, displayText(s.taintReason), impacted === null ? null : displayText(impacted))}\n${out}`;
        }
        return { text: out, taint, ...extra };
      },
      () => ({ text, taint: "untrusted" as const }),
    );
  }

  /** Seals the turn's graph, ends turn-scoped approvals and makes the watermark durable. */
  endTurn(sessionId: string): void {
    this.guarded(
      "endTurn",
      sessionId,
      () => {
        const s = this.sessions.get(sessionId);
        if (s === undefined) return;
        const sealedNow = !s.graph.sealed;
        s.graph.seal();
        this.approvals.endTurn(sessionId, s.turnId, this.now());
        this.deps.watermarks.flush();
        if (sealedNow) this.reportSealed(s);
      },
      () => undefined,
    );
  }

  /**
   * The owner's approval, from a slash command or a `.approve` message: for `minutes` when given,
   * else for `scope` (the one call the code was issued for, or the tool for the turn), else as
   * `approvalScope` says.
   */
  approve(sessionId: string, tool: string, code: string, minutes: number | null, senderIsOwner: boolean | null, scope?: "call" | "turn"): CommandOutcome {
    const asked: ApprovalScope | null = minutes !== null ? { kind: "minutes", minutes } : scope !== undefined ? { kind: scope } : null;
    return this.guarded(
      "approve",
      sessionId,
      () => this.applyApproval(this.session(sessionId), tool, code, asked, senderIsOwner),
      () => ({ kind: "approve" as const, accepted: false, message: "approval could not be processed (see log)" }),
    );
  }

  /** The owner's trust reset, from a slash command or a `.reset-trust` message. */
  resetTrust(sessionId: string, level: TrustLevel, senderIsOwner: boolean | null): CommandOutcome {
    return this.guarded(
      "resetTrust",
      sessionId,
      () => this.applyReset(this.session(sessionId), level, senderIsOwner),
      () => ({ kind: "reset-trust" as const, accepted: false, message: "trust reset could not be processed (see log)" }),
    );
  }

  /**
   * A session that holds content no tool call brought in: a conversation copied from another
   * session (Claude Code's fork, under a new id), someone else's words the host hands the model
   * beside the turn's message (OpenClaw's runtime context). At least `level` from now on, durably, as if that content
   * had been read here. Never lowers the taint. `ofMessage`: that content is the turn's message
   * itself (a message the owner forwarded), so its words stop counting as the owner's.
   */
  inheritTaint(sessionId: string, level: TrustLevel, reason: string, ofMessage = false): void {
    this.guarded(
      "inheritTaint",
      sessionId,
      () => {
        this.deps.watermarks.escalate(sessionId, level, reason, "inherited", new Date(this.now()));
        this.deps.watermarks.flush();
        const s = this.sessions.get(sessionId);
        if (s === undefined || s.graph.sealed) return;
        const before = s.graph.maxTaint;
        s.graph.add("history", reason, level);
        if (lessTrusted(s.graph.maxTaint, before)) s.taintReason = reason;
        if (!ofMessage) return;
        s.values.disown(s.turnId, level);
        // The host wrote the message into its transcript as the owner's: its memory may copy it
        // into a file of every later prompt, where contextFiles finds it.
        this.deps.foreignWords?.record(sessionId, level, s.turnText, new Date(this.now()));
      },
      (error) => {
        this.raiseToUntrusted(sessionId, `the inherited taint could not be recorded (${describeFailure(error)})`);
      },
    );
  }

  /**
   * Files the host put in the model's context with no tool call (its instruction and memory files,
   * the skills it lists) enter the begun turn as reading them would: by their `fileTrust` rule and
   * label. `what` says where the host put them. Returns the session's taint after them.
   */
  contextFiles(sessionId: string, files: readonly string[], what: string): TrustLevel {
    return this.guarded(
      "contextFiles",
      sessionId,
      (): TrustLevel => {
        const s = this.session(sessionId);
        this.continueIfEnded(s);
        this.labelForeignWords(files);
        for (const file of files) {
          const found = this.outputTrust.fileLevel(file);
          // Only a file that lowers the taint enters the graph: most are trusted, every turn.
          if (found === null || !lessTrusted(found.level, s.graph.maxTaint)) continue;
          this.enter(s, "history", `${what}: ${found.reason}`, found.level, "context-file");
          this.audit.record("CLAIM", { kind: "taint-escalated", sessionId, turnId: s.turnId, to: found.level, by: "context-file", file });
        }
        return s.graph.maxTaint;
      },
      (error) => {
        this.raiseToUntrusted(sessionId, `${what} could not be checked (${describeFailure(error)})`);
        return "untrusted";
      },
    );
  }

  /**
   * Labels each of `files` that holds the words of a message someone else wrote which the host
   * filed as the owner's (core/foreign-words.ts), once per message and file: the owner's
   * `provenant labels clear` vouches for the file as it is.
   */
  private labelForeignWords(files: readonly string[]): void {
    const store = this.deps.foreignWords;
    if (store === undefined || files.length === 0) return;
    const hits = store.takeHits(() => files.flatMap((path) => {
      const text = readHead(path);
      return text === null ? [] : [{ path, text }];
    }));
    for (const hit of hits) {
      this.fileLabels.mark([hit.path], { level: hit.level, sessionId: hit.sessionId, tool: hit.what, at: hit.at });
      this.audit.record("CLAIM", { kind: "file-labelled", file: hit.path, level: hit.level, by: "foreign-words", sessionId: hit.sessionId });
    }
  }

  /** Prompt signing (the owner-only `verify` and `update_and_sign` tools), when configured. */
  get signing(): SigRuntime | undefined {
    return this.deps.signing;
  }

  /**
   * Runs one of the guard's own owner-only tools (`verify`, `update_and_sign`) after
   * `beforeToolCall` allowed it; returns undefined for any other tool. Adapters register these
   * tools with their framework and route calls here.
   */
  runOwnerTool(sessionId: string, call: ToolCallInput): unknown {
    const signing = this.deps.signing;
    if (signing === undefined) return undefined;
    if (call.tool === "verify") return signing.verify(sessionId, call.params);
    if (call.tool === "update_and_sign") return signing.updateAndSign(sessionId, call.params);
    return undefined;
  }

  /**
   * Picks up watermark and file-label changes made by other processes sharing the workspace
   * (another front end's escalation, the owner's reset from the CLI) before the next turn reads them.
   */
  refreshSharedState(): void {
    this.deps.watermarks.refresh?.();
    this.outputTrust.refreshLabels();
  }

  /** The current turn's provenance graph (read-only use: tests, inspection, the ledger). */
  graph(sessionId: string): ProvenanceGraph | undefined {
    return this.sessions.get(sessionId)?.graph;
  }

  taint(sessionId: string): TrustLevel | undefined {
    return this.sessions.get(sessionId)?.graph.maxTaint;
  }

  /**
   * Never throws: a watermark that cannot be flushed is logged (the escalations were durable
   * already), and the ledger still closes. A turn still open ends here (the MCP proxy's one turn
   * per connection), so its graph is recorded.
   */
  close(): void {
    for (const [sessionId, s] of this.sessions) if (!s.graph.sealed) this.endTurn(sessionId);
    try {
      this.deps.watermarks.close();
    } catch (error) {
      this.logger.error("closing the watermark store failed", error);
    }
    this.deps.onClose?.();
  }

  /** The turn-graph record is for the owner's eyes: its failure is logged, never the turn's. */
  private reportSealed(s: SessionState): void {
    const sink = this.deps.onTurnSealed;
    if (sink === undefined) return;
    try {
      sink(s.sessionId, s.graph, new Date(this.now()));
    } catch (error) {
      this.logger.error(`session ${s.sessionId}: the graph of ${s.turnId} could not be recorded`, error);
    }
  }

  private startTurn(turn: TurnInput): TurnStart {
    this.outputTrust.refreshLabels();
    let s = this.sessions.get(turn.sessionId);
    if (s === undefined) {
      s = this.newSession(turn.sessionId);
      this.sessions.set(turn.sessionId, s);
      // Another process had this session (its watermark is on record): a restarted gateway or
      // service, a hook deciding alone. What it left running is not known here.
      if (this.deps.watermarks.get(turn.sessionId) !== undefined) this.outputTrust.resume(s);
    } else if (!s.graph.sealed) {
      this.endTurn(turn.sessionId);
    }
    if (turn.freshSession) {
      this.deps.watermarks.clear(turn.sessionId);
      this.audit.record("CLAIM", { kind: "fresh-session", sessionId: turn.sessionId });
    }
    if (turn.sessionKey) {
      // A new session under the same key (OpenClaw's /new) still reaches the background commands
      // the key's earlier session started (the host scopes them by key): their output is no more
      // trusted here than it was there.
      const previous = this.sessionKeys.get(turn.sessionKey);
      const before = previous === undefined || previous === turn.sessionId ? undefined : this.sessions.get(previous);
      if (before !== undefined) s.execLevel = minTrust(s.execLevel, before.execLevel);
      this.sessionKeys.set(turn.sessionKey, turn.sessionId);
    }
    s.turnSeq += 1;
    s.turnId = `${turn.sessionId}#${s.turnSeq}`;
    this.calls.clear(turn.sessionId);
    const authenticated = this.authenticate(turn, s.turnId);
    // A message that fails authentication is nobody's instruction: not the owner's, and untrusted.
    const isOwner = authenticated === undefined ? (turn.sender.isOwner ?? null) : authenticated.ownerVerified;
    const text = authenticated?.text ?? turn.text;
    s.turnText = text;
    s.agentId = turn.agentId ?? null;
    s.senderIsOwner = isOwner;
    s.senderId = turn.sender.id ?? null;
    s.group = turn.group ?? null;
    s.provider = turn.provider ?? null;
    s.iterations = 0;
    s.awaitingModel = true;
    s.turnBlocked = false;
    s.callParams.clear();
    s.callStarts.clear();
    s.graph = new ProvenanceGraph(s.turnId);
    s.graph.add("system_prompt", "system prompt", "trusted");
    s.taintReason = "system prompt";

    const watermark = this.deps.watermarks.get(turn.sessionId);
    if (watermark !== undefined && watermark.level !== "trusted") {
      s.graph.add("watermark", `session watermark: ${watermark.reason}`, watermark.level);
      s.taintReason = watermark.reason;
    }
    const initial =
      authenticated?.result.accepted === false
        ? { level: "untrusted" as const, reason: "unauthenticated message (refused)" }
        : classifyInitialTrust({ provider: turn.provider, spawnedBy: turn.spawnedBy, senderIsOwner: isOwner, senderId: turn.sender.id });
    for (const source of [initial, ...this.turnSources(turn)]) this.enter(s, "history", source.reason, source.level, "turn");

    if (this.tracesValues()) {
      const kind = initial.level === "trusted" && isOwner === true ? "owner" : "message";
      s.values.observe({ id: s.turnId, kind, trust: initial.level }, text);
    }
    if (this.deps.signing) {
      const identity = isOwner === true ? `owner:${turn.sender.id ?? "unknown"}:${turn.provider ?? "system"}` : undefined;
      this.deps.signing.beginTurn(turn.sessionId, {
        turnId: s.turnId,
        senderIsOwner: isOwner,
        ...(identity ? { senderIdentity: identity } : {}),
      });
      if (identity && turn.provider) {
        this.deps.signing.ingestOwnerMessage({
          sessionId: turn.sessionId,
          channel: turn.provider,
          messageId: turn.messageId ?? String(s.turnSeq),
          text,
          identity,
        });
      }
    }
    const command = this.ownerCommand(s, text);
    return {
      turnId: s.turnId,
      taint: s.graph.maxTaint,
      command,
      text,
      ...(authenticated ? { authentication: authenticated.result } : {}),
    };
  }

  /**
   * Verifies the turn's envelope and sets its intent scope. Only a verified human message keeps
   * the framework's word that the owner sent it; agents, system jobs and unsigned text never
   * carry the owner's authority, whatever they claim.
   */
  private authenticate(turn: TurnInput, turnId: string): { result: TurnAuthentication; text: string; ownerVerified: boolean | null } | undefined {
    const auth = this.deps.auth;
    if (auth === undefined) return undefined;
    const kind: InboundKind =
      turn.kind ?? (!turn.provider ? "system" : turn.spawnedBy || turn.inputProvenance ? "inter-agent" : "channel");
    const decision = auth.authenticator.authenticateInbound({
      text: turn.text,
      sessionId: turn.sessionId,
      now: this.now(),
      kind,
      agentId: turn.agentId ?? null,
      senderIsOwner: turn.sender.isOwner ?? null,
      jobId: turn.jobId ?? null,
      ...(kind === "inter-agent" ? { interAgent: { systemPrompt: turn.systemPrompt ?? "", inputProvenance: turn.inputProvenance ?? null } } : {}),
    });
    if (!decision.accept) {
      auth.scopeGate.clearScope(turn.sessionId);
      this.logger.warn(`session ${turn.sessionId}: inbound message refused (${decision.check}: ${decision.reason})`);
      this.audit.record("VERIFY", { kind: "message-refused", sessionId: turn.sessionId, turnId, check: decision.check, reason: decision.reason });
      return { result: { accepted: false, source: null, scope: [], publicReason: decision.publicReason }, text: "", ownerVerified: false };
    }
    for (const warning of decision.warnings) this.logger.warn(`session ${turn.sessionId}: message authentication (warn mode): ${warning}`);
    auth.scopeGate.setScope(turn.sessionId, { source: decision.source, classes: decision.scope });
    const scope = [...decision.scope];
    this.audit.record("VERIFY", { kind: "message-accepted", sessionId: turn.sessionId, turnId, source: decision.source, scope, messageId: decision.messageId, requester: decision.requester });
    const ownerVerified = decision.source === "human" ? (turn.sender.isOwner ?? null) : false;
    return { result: { accepted: true, source: decision.source, scope }, text: decision.text, ownerVerified };
  }

  private ownerCommand(s: SessionState, text: string): CommandOutcome | null {
    const parsed = parseOwnerCommand(text);
    if (parsed === null) return null;
    if (parsed.kind === "invalid") return { kind: parsed.command, accepted: false, message: parsed.error };
    if (parsed.kind === "approve") return this.applyApproval(s, parsed.tool, parsed.code, parsed.scope, s.senderIsOwner);
    return this.applyReset(s, parsed.level, s.senderIsOwner);
  }

  private applyApproval(s: SessionState, tool: string, code: string, asked: ApprovalScope | null, senderIsOwner: boolean | null): CommandOutcome {
    if (senderIsOwner !== true) {
      this.logger.warn(`session ${s.sessionId}: approval attempt from a sender who is not the verified owner; ignored`);
      this.audit.record("CLAIM", { kind: "approval-ignored", sessionId: s.sessionId, tool, senderIsOwner });
      return { kind: "approve", accepted: false, message: "only the owner can approve tools" };
    }
    // Between turns (a slash command), a turn-scoped approval is for the turn that comes next.
    const turnId = s.graph.sealed ? `${s.sessionId}#${s.turnSeq + 1}` : s.turnId;
    const scope: ApprovalScope = asked ?? { kind: this.config.approvalScope };
    const result = this.approvals.approve(s.sessionId, tool, code, scope, turnId, this.now());
    this.audit.record("CLAIM", {
      kind: "approval",
      sessionId: s.sessionId,
      turnId,
      tool,
      accepted: result.ok,
      ...(result.ok ? { tools: result.tools, until: result.until, scope: result.scope, call: result.call } : { failure: result.failure }),
    });
    if (!result.ok) {
      this.logger.warn(`session ${s.sessionId}: approval refused (${result.failure})`);
      return { kind: "approve", accepted: false, message: result.message };
    }
    const what =
      result.scope === "call"
        ? `approved this call once: ${result.call}`
        : result.until === null
          ? `approved ${result.tools.join(", ")} for this turn (every call)`
          : `approved ${result.tools.join(", ")} until ${new Date(result.until).toISOString()} (every call)`;
    return { kind: "approve", accepted: true, message: what };
  }

  private applyReset(s: SessionState, level: TrustLevel, senderIsOwner: boolean | null): CommandOutcome {
    const allowed = senderIsOwner === true || (senderIsOwner === null && this.config.allowResetWhenOwnerUnknown);
    if (!allowed) {
      this.logger.warn(`session ${s.sessionId}: .reset-trust from a sender who is not the verified owner; ignored`);
      this.audit.record("CLAIM", { kind: "reset-ignored", sessionId: s.sessionId, level, senderIsOwner });
      return { kind: "reset-trust", accepted: false, message: "only the owner can reset trust" };
    }
    const from = s.graph.maxTaint;
    // Between turns the next turn starts from the reset watermark; a sealed graph stays as it was.
    if (!s.graph.sealed) s.graph.reset(level, `owner reset trust to ${level}`);
    s.values.raiseTrust(level);
    s.taintReason = `owner reset to ${level}`;
    this.deps.watermarks.reset(s.sessionId, level, senderIsOwner === true ? "owner" : "unverified sender (allowResetWhenOwnerUnknown)", new Date(this.now()));
    this.approvals.clearPending(s.sessionId);
    s.turnBlocked = false;
    this.audit.record("CLAIM", { kind: "trust-reset", sessionId: s.sessionId, turnId: s.turnId, from, to: level });
    return { kind: "reset-trust", accepted: true, message: `trust reset to ${level}` };
  }

  private decide(s: SessionState, call: ToolCallInput): Decision {
    this.continueIfEnded(s);
    if (call.id !== undefined) s.callParams.set(call.id, call.params);
    const now = this.now();
    if (s.awaitingModel) {
      s.awaitingModel = false;
      s.iterations += 1;
      s.graph.add("llm_call", `model call ${s.iterations}`, s.graph.maxTaint);
      if (s.iterations > this.config.maxIterations) {
        s.turnBlocked = true;
        this.logger.warn(`session ${s.sessionId}: iteration cap ${this.config.maxIterations} reached; turn blocked`);
      }
    }
    const taint = s.graph.maxTaint;
    const provenance = this.provenance(s.graph.taintSource);
    const base = { tool: call.tool, taint, provenance };
    const held = heldCall(call.tool, call.params);
    // Asked once per decision: a grant for this one call is spent when it lets the call through.
    let approval: boolean | undefined;
    const approved = (): boolean => (approval ??= this.approvals.takeApproval(s.sessionId, held, s.turnId, now));
    if (s.turnBlocked) {
      return { ...base, verdict: "block", rule: "iteration-cap", reason: `the turn exceeded maxIterations (${this.config.maxIterations}) and is blocked` };
    }

    const files = gateFiles(this.catalogue, call.tool, call.params, this.home, extractPatchTargets);
    const command = this.gateCommand(call.tool, call.params);
    for (const gate of this.gates) {
      const verdict = gate.check({
        sessionId: s.sessionId,
        turnId: s.turnId,
        tool: call.tool,
        params: call.params,
        taint,
        senderIsOwner: s.senderIsOwner,
        ...(files !== undefined ? { files } : {}),
        ...(command !== undefined ? { command } : {}),
      });
      if (verdict === undefined) continue;
      if (verdict.verdict === "confirm") {
        if (approved()) continue;
        return this.confirm(s, base, held, verdict.rule, verdict.reason, now);
      }
      return { ...base, verdict: "block", rule: verdict.rule, reason: verdict.reason };
    }

    if (taint !== "trusted" && files?.writes === true) {
      const staged = this.stageMemoryWrite(s, call, files.paths, taint, now);
      if (staged !== null) return { ...base, ...staged };
    }

    const policy = this.policy(s.agentId);
    const mode = policy.modeFor(call.tool, taint, { messageToOwner: this.isMessageToOwner(s, call) });
    const byArguments = this.tracesValues()
      ? checkArguments({
          values: s.values,
          tool: call.tool,
          params: call.params,
          roles: this.config.toolArgumentRoles,
          operations: this.config.toolOperations,
          action: policy.actionClass(call.tool),
          taint,
          mode: mode.mode,
          rule: mode.rule,
          underTaint: this.config.argumentProvenance,
          atTrusted: this.config.argumentProvenanceAtTrusted,
        })
      : null;
    if (byArguments?.verdict === "allow") return { ...base, verdict: "allow", rule: ARGUMENT_PROVENANCE_RULE, reason: byArguments.decision.reason };
    if (mode.mode === "allow" && byArguments === null) return { ...base, verdict: "allow", rule: mode.rule, reason: mode.reason };
    if (approved()) {
      return { ...base, verdict: "allow", rule: "approved", reason: `the owner approved ${held.shown}` };
    }
    this.deps.watermarks.noteImpacted(s.sessionId, call.tool);
    if (mode.mode === "restrict") {
      return { ...base, verdict: "block", rule: mode.rule, reason: `Tool '${call.tool}' is restricted by security policy (${mode.reason}); no approval is possible. The owner can clear the conversation's taint with .reset-trust and ask again.` };
    }
    if (byArguments !== null) {
      const why =
        byArguments.why ??
        (mode.mode === "allow" ? "argumentProvenanceAtTrusted: an argument is not vouched for by trusted data" : `${mode.reason}; its arguments are not all determined by trusted data`);
      const asked = this.confirm(s, base, held, ARGUMENT_PROVENANCE_RULE, why, now);
      const traced = byArguments.decision.traces;
      return { ...asked, reason: `${asked.reason}\n${byArguments.decision.reason}`, ...(traced.length > 0 ? { arguments: decisionArguments(traced) } : {}) };
    }
    return this.confirm(s, base, held, mode.rule, mode.reason, now);
  }

  private confirm(
    s: SessionState,
    base: { tool: string; taint: TrustLevel; provenance: DecisionProvenance | null },
    held: HeldCall,
    rule: string,
    why: string,
    now: number,
  ): Decision {
    const issued = this.approvals.issue(s.sessionId, held, now);
    const seconds = Math.max(0, Math.round((issued.expiresAt - now) / 1000));
    const source = base.provenance ? ` Context contains ${base.taint} content from ${base.provenance.label}.` : "";
    const tool = escapeText(base.tool);
    // The owner approves what is shown here: the exact call, escaped, and the scope each form grants.
    const forms =
      this.config.approvalScope === "call"
        ? `Approve this call once:  .approve ${tool} ${issued.code}\n` + `Approve every ${tool} call this turn:  .approve ${tool} ${issued.code} turn\n`
        : `Approve every ${tool} call this turn:  .approve ${tool} ${issued.code}\n` + `Approve this call once:  .approve ${tool} ${issued.code} call\n`;
    const reason =
      `Tool '${tool}' is blocked by security policy (${why}).${source}\n` +
      `Call: ${held.shown}\n` +
      `Blocked tools: ${tool}\n` +
      `Approval code: ${issued.code} (expires in ${seconds}s)\n` +
      forms +
      `Approve every ${tool} call for some minutes:  .approve ${tool} ${issued.code} <minutes>`;
    return { ...base, verdict: "confirm", rule, reason, code: issued.code };
  }

  /**
   * After a call that ran: signed files it changed get their signed content back (sig/restore-signed.ts),
   * since a script or a program that picks its own names writes past any gate. Not after the host's
   * tools that change nothing (its safe tools).
   */
  private restoreSignedFiles(tool: string, started: number | null): readonly RestoredFile[] {
    const signing = this.deps.signing;
    if (signing === undefined || this.catalogue.safeTools.includes(tool)) return [];
    return signing.restoreChangedFiles(started, join(this.workspaceDir, ".provenance", "sig-kept"));
  }

  /** Records the signed files a call changed, vouches for those put back, and says what the model should be told. */
  private signedFilesRestored(s: SessionState, tool: string, changed: readonly RestoredFile[]): string | undefined {
    if (changed.length === 0) return undefined;
    for (const r of changed) {
      // What is there now is the owner's signed content, whatever the call wrote first.
      if (r.restored) this.fileLabels.vouchFor(join(this.workspaceDir, r.file));
      this.logger.warn(`session ${s.sessionId}: ${tool} changed the signed file ${r.file}; ${r.restored ? "restored" : `not restored (${r.problem ?? "unknown"})`}`);
      this.audit.record("CLAIM", { kind: "signed-file-changed", sessionId: s.sessionId, tool, file: r.file, restored: r.restored, keptAt: r.keptAt, ...(r.problem !== undefined ? { problem: r.problem } : {}) });
    }
    const names = (files: readonly { file: string }[]) => files.map((r) => displayText(r.file)).join(", ");
    const restored = changed.filter((r) => r.restored);
    const failed = changed.filter((r) => !r.restored);
    const told = [`provenant: this ${displayText(tool)} call changed the signed ${changed.length === 1 ? "file" : "files"} ${names(changed)}.`];
    if (restored.length > 0) told.push(`provenant put ${names(restored)} back as signed; what the call left is kept in .provenance/sig-kept/.`);
    if (failed.length > 0) told.push(`${names(failed)} could not be put back and no longer ${failed.length === 1 ? "verifies" : "verify"}.`);
    told.push("Signed files change only through update_and_sign or by the owner.");
    return told.join(" ");
  }

  /** For a tool that runs a shell command: where its words say it touches files, from its `workdir` (else the workspace). */
  private gateCommand(tool: string, params: Readonly<Record<string, unknown>>): GateCommand | undefined {
    const text = params["command"];
    if (!this.catalogue.execTools.has(tool) || typeof text !== "string") return undefined;
    const workdir = params["workdir"];
    return commandFiles(readExec(text), typeof workdir === "string" && workdir.trim() !== "" ? workdir : ".");
  }

  /** `targets`: every path the host may read the write's path arguments as (gateFiles). */
  private stageMemoryWrite(
    s: SessionState,
    call: ToolCallInput,
    targets: readonly string[],
    taint: TrustLevel,
    now: number,
  ): Omit<Decision, "tool" | "taint" | "provenance"> | null {
    for (const target of targets) {
      if (target === "") continue;
      const hit = this.deps.memoryFiles.protectedTarget(target);
      if (hit === null) continue;
      const reason = `a write to memory file ${hit.relativePath} while the context is ${taint}`;
      if (call.tool === "apply_patch") {
        // A patch cannot be staged as file content; it is refused whole and kept in the ledger.
        this.audit.record("CLAIM", { kind: "write-refused", sessionId: s.sessionId, tool: call.tool, path: hit.relativePath, params: call.params, taint });
        return { verdict: "block", rule: "memory-write-blocked", reason: `Blocked ${reason}: a patch touching a memory file cannot run under taint. Ask the owner to .reset-trust and retry.` };
      }
      let staged: { id: string; location: string };
      try {
        staged = this.deps.memoryFiles.stage({
          sessionId: s.sessionId,
          tool: call.tool,
          params: call.params,
          targetPath: target,
          resolvedPath: hit.resolvedPath,
          taint,
          reason,
          now: new Date(now),
        });
      } catch (error) {
        // Staging failed (an edit that does not apply, a full disk): the write still must not run.
        const detail = error instanceof Error ? error.message : String(error);
        this.logger.error(`session ${s.sessionId}: could not stage ${call.tool} to ${hit.relativePath}`, error);
        this.audit.record("CLAIM", { kind: "write-refused", sessionId: s.sessionId, tool: call.tool, path: hit.relativePath, params: call.params, taint, detail });
        return { verdict: "block", rule: "memory-write-blocked", reason: `Blocked ${reason}; it could not be staged (${detail}), so it was refused and recorded in the ledger.` };
      }
      this.audit.record("CLAIM", { kind: "write-staged", sessionId: s.sessionId, tool: call.tool, path: hit.relativePath, stagedId: staged.id, taint });
      return {
        verdict: "block",
        rule: "memory-write-staged",
        reason:
          `Blocked ${reason}. The content is saved to staging (${staged.location}); nothing is lost. ` +
          `The owner can review it with 'provenant blocked-writes show ${staged.id}' and commit it, or use .reset-trust and retry.`,
        staged: { id: staged.id, path: hit.relativePath },
      };
    }
    return null;
  }

  /** A send only to the owner (core/message-recipients.ts reads every recipient field). */
  private isMessageToOwner(s: SessionState, call: ToolCallInput): boolean {
    if (call.tool !== this.catalogue.messageTool) return false;
    return isMessageToOwner(call.params, {
      ownerIds: this.config.ownerIds,
      senderId: s.senderId,
      senderIsOwner: s.senderIsOwner,
      group: s.group,
      provider: s.provider,
    });
  }

  /**
   * Sessions whose content a turn's message carries: a sub-agent's task comes from its parent
   * (`spawnedBy`), an inter-session message (a `sessions_send`, a sub-agent's announced result)
   * from its source session. Each carries at least that session's taint. A parent the guard does
   * not know counts at the worst level of any session here; an unknown source of an inter-session
   * message leaves the turn's own classification (another agent's message is external).
   */
  private turnSources(turn: TurnInput): { level: TrustLevel; reason: string }[] {
    const sources: { level: TrustLevel; reason: string }[] = [];
    if (!this.config.crossSessionTaint) return sources;
    if (turn.spawnedBy) {
      const { level, reason } = sessionContentLevel([turn.spawnedBy], false, (ref) => this.sessionLevel(ref), this.worstSessionLevel());
      sources.push({ level, reason: `task carrying ${reason}` });
    }
    const p = turn.inputProvenance;
    if (p?.kind === "inter_session" && typeof p.sourceSessionKey === "string" && p.sourceSessionKey !== turn.spawnedBy) {
      const level = this.sessionLevel(p.sourceSessionKey);
      if (level !== undefined) sources.push({ level, reason: `message from session ${p.sourceSessionKey} (at ${level})` });
    }
    return sources;
  }

  /** For a tool that hands back another session's content: the least trust that content has. */
  private crossSessionContent(sessionId: string, result: ToolResultInput, params: Readonly<Record<string, unknown>>): { level: TrustLevel; reason: string } | null {
    if (!this.config.crossSessionTaint || !CROSS_SESSION_TOOLS.has(result.tool)) return null;
    const { refs, truncated } = sessionReferences(params, result.output);
    return sessionContentLevel(refs.length === 0 && ABOUT_CALLER_UNLESS_NAMED.has(result.tool) ? [sessionId] : refs, truncated, (ref) => this.sessionLevel(ref), this.worstSessionLevel(), showsUnnamedRun(result.tool, result.output));
  }

  /** A session's taint, by the guard's id or the host's key: its live taint or watermark, whichever is worse. */
  private sessionLevel(ref: string): TrustLevel | undefined {
    const id = this.sessionKeys.get(ref) ?? ref;
    const live = this.sessions.get(id)?.graph.maxTaint;
    const stored = this.deps.watermarks.get(id)?.level;
    if (live === undefined) return stored;
    return stored === undefined ? live : minTrust(live, stored);
  }

  private worstSessionLevel(): TrustLevel {
    let worst: TrustLevel = "trusted";
    for (const id of this.sessions.keys()) worst = minTrust(worst, this.sessionLevel(id) ?? "trusted");
    return worst;
  }

  private provenance(node: ProvenanceNode | null): DecisionProvenance | null {
    if (node === null) return null;
    return { nodeId: node.id, kind: node.kind, label: node.label, tool: node.tool, trust: node.trust };
  }

  private policy(agentId: string | null): ToolPolicy {
    const key = agentId ?? "";
    let policy = this.policies.get(key);
    if (policy === undefined) {
      policy = new ToolPolicy(policyForAgent(this.config, agentId), this.catalogue);
      this.policies.set(key, policy);
    }
    return policy;
  }

  private tracesValues(): boolean {
    return this.config.argumentProvenance || this.config.argumentProvenanceAtTrusted;
  }

  /**
   * Tool activity after the turn ended (a late call, an adapter that ended early) continues in a
   * new turn at the taint the last one ended with: nothing is decided on a sealed graph, and
   * nothing gets more trusted for arriving late.
   */
  private continueIfEnded(s: SessionState): void {
    if (!s.graph.sealed) return;
    const previous = s.graph;
    s.turnSeq += 1;
    s.turnId = `${s.sessionId}#${s.turnSeq}`;
    s.graph = new ProvenanceGraph(s.turnId);
    s.graph.add("system_prompt", "system prompt", "trusted");
    s.graph.add("history", `continuation of ${previous.turnId}`, previous.maxTaint);
    s.iterations = 0;
    s.awaitingModel = true;
    this.logger.warn(`session ${s.sessionId}: tool activity after ${previous.turnId} ended; continuing as ${s.turnId} at ${previous.maxTaint}`);
  }

  /** A call with no turn (an adapter missed the start) is treated as coming from nobody we know. */
  /**
   * Adds what entered the turn to its graph; when it lowers the turn's taint, it becomes the taint's
   * reason and the session's watermark follows (`by` says what raised it). True when it did.
   */
  private enter(s: SessionState, kind: NodeKind, label: string, level: TrustLevel, by: string, options: { tool?: string } = {}): boolean {
    const before = s.graph.maxTaint;
    s.graph.add(kind, label, level, options);
    if (!lessTrusted(s.graph.maxTaint, before)) return false;
    s.taintReason = label;
    this.deps.watermarks.escalate(s.sessionId, level, label, by, new Date(this.now()));
    return true;
  }

  private session(sessionId: string): SessionState {
    let s = this.sessions.get(sessionId);
    if (s === undefined) {
      this.logger.warn(`session ${sessionId}: tool activity with no turn started; treating the context as untrusted`);
      s = this.newSession(sessionId);
      s.graph.add("history", "no turn context", "untrusted");
      s.taintReason = "no turn context";
      this.sessions.set(sessionId, s);
    }
    return s;
  }

  private newSession(sessionId: string): SessionState {
    return {
      sessionId,
      agentId: null,
      turnSeq: 0,
      turnId: `${sessionId}#0`,
      graph: new ProvenanceGraph(`${sessionId}#0`),
      senderIsOwner: null,
      senderId: null,
      group: null,
      provider: null,
      iterations: 0,
      awaitingModel: true,
      turnBlocked: false,
      taintReason: "system prompt",
      values: new ValueProvenance(),
      callParams: new Map(),
      callStarts: new Map(),
      backgroundSince: null,
      turnText: "",
      execLevel: "trusted",
    };
  }

  private guarded<T>(method: string, sessionId: string, body: () => T, fallback: (error: unknown) => T): T {
    try {
      return body();
    } catch (error) {
      this.logger.error(`${method} failed for session ${sessionId}; failing ${this.config.failMode}`, error);
      try {
        this.audit.record("META", {
          kind: `fail-${this.config.failMode}`,
          method,
          sessionId,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        });
      } catch (auditError) {
        this.logger.error("the audit sink failed while recording a failure", auditError);
      }
      return fallback(error);
    }
  }

  /**
   * The decision for a call the guard could not decide (docs/engine.md, "Fail mode"): never a
   * side effect unasked. An approval the owner already gave for the tool still counts; otherwise
   * an approval code is issued where the code book still works.
   */
  private failedDecision(sessionId: string, call: ToolCallInput, error: unknown): Decision {
    const tool = call.tool;
    const now = this.now();
    let code: { code: string; expiresInSeconds: number } | undefined;
    let shown: string | undefined;
    try {
      const turnId = this.sessions.get(sessionId)?.turnId ?? `${sessionId}#0`;
      const held = heldCall(tool, call.params);
      shown = held.shown;
      if (this.config.failMode === "open" && this.approvals.takeApproval(sessionId, held, turnId, now)) {
        return { tool, verdict: "allow", taint: "untrusted", rule: "approved", reason: `the owner approved ${displayText(tool)}`, provenance: null };
      }
      const decision = failSafeDecision(this.config.failMode, tool, error, undefined, this.catalogue, shown);
      if (decision.verdict !== "confirm") return decision;
      const issued = this.approvals.issue(sessionId, held, now);
      code = { code: issued.code, expiresInSeconds: Math.max(0, Math.round((issued.expiresAt - now) / 1000)) };
    } catch (codeError) {
      this.logger.error(`session ${sessionId}: no approval code could be issued for a failed decision`, codeError);
    }
    return failSafeDecision(this.config.failMode, tool, error, code, this.catalogue, shown);
  }

  /**
   * After a failure the session's context is treated as untrusted: best effort, each step on its
   * own, since the state that failed may be the session's.
   */
  private raiseToUntrusted(sessionId: string, reason: string): SessionState | undefined {
    let s: SessionState | undefined;
    try {
      s = this.sessions.get(sessionId);
      if (s === undefined) {
        s = this.newSession(sessionId);
        this.sessions.set(sessionId, s);
      }
      this.continueIfEnded(s);
    } catch (error) {
      this.logger.error(`session ${sessionId}: could not continue the ended turn after a failure`, error);
    }
    try {
      // Even when continuing failed part-way (its log line, say): the calls decided next must see
      // the context as untrusted, not only the next turn through the watermark.
      if (s !== undefined) {
        s.graph.add("history", reason, "untrusted");
        s.taintReason = reason;
      }
    } catch (error) {
      this.logger.error(`session ${sessionId}: could not mark the context untrusted in memory`, error);
    }
    try {
      this.deps.watermarks.escalate(sessionId, "untrusted", reason, "guard-failure", new Date(this.now()));
    } catch (error) {
      this.logger.error(`session ${sessionId}: could not persist the untrusted watermark`, error);
    }
    return s;
  }

  /**
   * A tool output the guard could not process still reaches the model, but never with a live
   * `[MSG_AUTH:` marker in it: neutralised when it is text, withheld when it cannot be.
   */
  private failedOutput(output: unknown, failure: string): unknown {
    if (this.deps.auth === undefined) return output;
    try {
      if (typeof output === "string") return neutraliseEnvelopes(output);
      boundedWellFormed(output, TOOL_OUTPUT_LIMITS, "tool output");
      return mapStrings(output, neutraliseEnvelopes);
    } catch {
      return `[provenant withheld this tool output: it could not be checked (${failure})]`;
    }
  }

  /**
   * Reasons reach the owner (approval prompts, chat) and name tools the model chose: a tool name
   * with a newline or an escape sequence must not forge or hide a line of the prompt.
   */
  private displaySafe(decision: Decision): Decision {
    const tool = displayText(decision.tool);
    const withTool = tool === decision.tool ? decision.reason : decision.reason.replaceAll(decision.tool, tool);
    const reason = displayBlock(withTool);
    return reason === decision.reason ? decision : { ...decision, reason };
  }
}

/** The same value with every string in it passed through `f` (tool outputs are text or JSON). */
function mapStrings(value: unknown, f: (text: string) => string): unknown {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, mapStrings(v, f)]));
  }
  return value;
}
