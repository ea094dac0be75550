/**
 * The part of OpenClaw's plugin SDK (openclaw 2026.9.6) this adapter uses, written out
 * structurally. The library builds and type-checks on Node 20 where `openclaw` (Node 24+) is not
 * installed; the end-to-end tier installs the real package and compiles
 * `test/e2e/sdk-conformance.ts`, which passes every handler, command, tool and policy below to the
 * real `OpenClawPluginApi`, so a drift between these shapes and the SDK fails that build.
 *
 * Field comments are the SDK's contract as far as this adapter relies on it.
 */

export interface ToolRequester {
  readonly channel?: string;
  readonly accountId?: string;
  readonly senderId?: string;
  /** True only when the host resolved the sender as an owner; absent means unproven. */
  readonly senderIsOwner?: boolean;
  readonly roleIds?: readonly string[];
}

export interface InputProvenance {
  kind: "external_user" | "inter_session" | "internal_system";
  originSessionId?: string;
  sourceSessionKey?: string;
  sourceChannel?: string;
  sourceTool?: string;
  sourceRole?: "subagent";
}

export interface AgentContext {
  runId?: string;
  /** The cron job behind a scheduled (or webhook) run. */
  jobId?: string;
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  workspaceDir?: string;
  messageProvider?: string;
  channel?: string;
  chatId?: string;
  senderId?: string;
  trigger?: string;
  channelId?: string;
  inputProvenance?: InputProvenance;
}

export interface BeforePromptBuildEvent {
  prompt: string;
  currentUserMessage?: string;
  /** Stable id of the admitted user message. */
  currentUserMessageId?: string;
  messages: unknown[];
}

export interface BeforePromptBuildResult {
  toolsAllow?: string[];
  prependContext?: string;
}

export interface BeforeAgentRunEvent {
  prompt: string;
  messages: unknown[];
  systemPrompt?: string;
  channelId?: string;
  senderId?: string;
  senderIsOwner?: boolean;
}

export type BeforeAgentRunResult = { outcome: "pass" } | { outcome: "block"; reason: string; message?: string } | void;

export interface ToolContext {
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  runId?: string;
  toolName: string;
  toolCallId?: string;
  channelId?: string;
  requester?: ToolRequester;
}

export interface BeforeToolCallEvent {
  toolName: string;
  params: Record<string, unknown>;
  runId?: string;
  toolCallId?: string;
}

export type ApprovalResolution = "allow-once" | "allow-always" | "deny" | "timeout" | "cancelled";

export interface BeforeToolCallResult {
  block?: boolean;
  blockReason?: string;
  requireApproval?: {
    title: string;
    description: string;
    severity?: "info" | "warning" | "critical";
    timeoutMs?: number;
    timeoutReason?: string;
    allowedDecisions?: Array<"allow-once" | "allow-always" | "deny">;
    pluginId?: string;
    onResolution?: (decision: ApprovalResolution) => Promise<void> | void;
  };
}

export interface AfterToolCallEvent {
  toolName: string;
  params: Record<string, unknown>;
  runId?: string;
  toolCallId?: string;
  result?: unknown;
  error?: string;
}

export interface LlmInputEvent {
  runId: string;
  sessionId: string;
  /** The turn's message as the model gets it, with what the host and plugins put around it (added-context.ts). */
  prompt?: string;
  /** The system prompt of the request, with what other plugins added to it (added-context.ts). */
  systemPrompt?: string;
  tools?: unknown[];
  /** The request's history, the host's runtime context (`customType: "openclaw.runtime-context"`) among it. */
  historyMessages?: unknown[];
}

export interface AgentEndEvent {
  runId?: string;
  messages: unknown[];
  success: boolean;
  error?: string;
}

export interface MessageContext {
  channelId: string;
  accountId?: string;
  conversationId?: string;
  sessionKey?: string;
}

export interface MessageReceivedEvent {
  from: string;
  content: string;
  senderId?: string;
  sessionKey?: string;
}

export interface MessageSendingEvent {
  to: string;
  content: string;
}

export interface MessageSendingResult {
  content?: string;
}

/** A message about to be written to a session's transcript (the host's `AgentMessage`, read defensively). */
export interface BeforeMessageWriteEvent<M = unknown> {
  message: M;
  sessionKey?: string;
  agentId?: string;
}

/** The message to write instead (the host's own type, returned as a changed copy). */
export interface BeforeMessageWriteResult<M> {
  message?: M;
}

export interface MessageWriteContext {
  agentId?: string;
  sessionKey?: string;
}

export interface SubagentSpawnedEvent {
  childSessionKey: string;
  agentId: string;
  runId: string;
}

export interface SubagentContext {
  runId?: string;
  childSessionKey?: string;
  requesterSessionKey?: string;
}

export interface SubagentEndedEvent {
  targetSessionKey: string;
}

export interface SessionContext {
  agentId?: string;
  sessionId: string;
  sessionKey?: string;
}

export interface SessionEndEvent {
  sessionId: string;
  sessionKey?: string;
}

/** The typed hooks the adapter registers, with the SDK's handler signatures (arguments it reads, results it returns). */
export interface HookHandlers {
  before_prompt_build: (event: BeforePromptBuildEvent, ctx: AgentContext) => BeforePromptBuildResult | void;
  before_agent_run: (event: BeforeAgentRunEvent, ctx: AgentContext) => BeforeAgentRunResult;
  before_tool_call: (event: BeforeToolCallEvent, ctx: ToolContext) => BeforeToolCallResult | void | Promise<BeforeToolCallResult | void>;
  after_tool_call: (event: AfterToolCallEvent, ctx: ToolContext) => void;
  llm_input: (event: LlmInputEvent, ctx: AgentContext) => void;
  agent_end: (event: AgentEndEvent, ctx: AgentContext) => void;
  message_received: (event: MessageReceivedEvent, ctx: MessageContext) => void;
  message_sending: (event: MessageSendingEvent, ctx: MessageContext) => MessageSendingResult | void;
  subagent_spawned: (event: SubagentSpawnedEvent, ctx: SubagentContext) => void;
  subagent_ended: (event: SubagentEndedEvent, ctx: SubagentContext) => void;
  session_end: (event: SessionEndEvent, ctx: SessionContext) => void;
  before_message_write: <M>(event: BeforeMessageWriteEvent<M>, ctx: MessageWriteContext) => BeforeMessageWriteResult<M> | void;
}

export type HookName = keyof HookHandlers;

export interface HookOptions {
  priority?: number;
}

export interface CommandContext {
  senderId?: string;
  channel: string;
  isAuthorizedSender: boolean;
  senderIsOwner?: boolean;
  /** Scopes of a gateway client that sent the command (an operator's token), when it came that way. */
  gatewayClientScopes?: string[];
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  args?: string;
  commandBody: string;
}

export interface CommandResult {
  text?: string;
}

export interface CommandDefinition {
  name: string;
  description: string;
  acceptsArgs?: boolean;
  requireAuth?: boolean;
  handler: (ctx: CommandContext) => CommandResult | Promise<CommandResult>;
}

export interface ToolResultContent {
  type: "text";
  text: string;
}

export interface ImageResultContent {
  type: "image";
  data: string;
  mimeType: string;
}

export interface AgentToolResult {
  content: Array<ToolResultContent | ImageResultContent>;
  details: unknown;
}

export interface ToolResultMiddlewareEvent {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  isError?: boolean;
  result: AgentToolResult;
}

export interface ToolResultMiddlewareContext {
  runtime: "openclaw" | "codex";
  agentId?: string;
  sessionId?: string;
  sessionKey?: string;
  runId?: string;
}

/** Rewrites a tool's result after it ran and before the runtime feeds it back to the model. */
export type ToolResultMiddleware = (event: ToolResultMiddlewareEvent, ctx: ToolResultMiddlewareContext) => { result: AgentToolResult } | void;

/** A JSON Schema object for a tool's parameters, as the SDK's TypeBox `TSchema` accepts it. */
export interface ToolParameterSchema {
  [key: string]: unknown;
  type: "object";
  properties: Record<string, unknown>;
}

export interface AgentTool {
  name: string;
  label: string;
  description: string;
  parameters: ToolParameterSchema;
  execute(this: void, toolCallId: string, params: unknown, signal?: AbortSignal): Promise<AgentToolResult>;
}

export interface ToolFactoryContext {
  workspaceDir?: string;
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  requesterSenderId?: string;
  /** Trusted owner bit from inbound context (runtime-provided, never from tool arguments). */
  senderIsOwner?: boolean;
}

export type ToolFactory = (ctx: ToolFactoryContext) => AgentTool | AgentTool[] | null | undefined;

export interface TrustedToolPolicy {
  id: string;
  description: string;
  /** Awaited by the host, with no time limit of its own: a policy that waits bounds the wait itself. */
  evaluate: (event: BeforeToolCallEvent, ctx: ToolContext) => BeforeToolCallResult | void | Promise<BeforeToolCallResult | void>;
}

/** A background service: started once in the gateway process (not in CLI commands that load the plugin), stopped at shutdown. */
export interface PluginService {
  id: string;
  start: (ctx: PluginServiceContext) => void | Promise<void>;
  stop?: (ctx: PluginServiceContext) => void | Promise<void>;
}

export interface PluginServiceContext {
  logger: PluginLogger;
  /** OpenClaw's state directory (`~/.openclaw`): the operator's, outside every agent workspace. */
  stateDir: string;
}

export interface PluginLogger {
  debug?: (message: string) => void;
  info: (message: string) => void;
  warn: (message: string) => void;
  error: (message: string) => void;
}

/** The registration API handed to `register(api)`. */
export interface PluginApi {
  readonly id: string;
  readonly pluginConfig?: Record<string, unknown>;
  /** OpenClaw's own resolved configuration (read to detect unprotected runtimes). */
  readonly config: unknown;
  /** The host's runtime helpers; `config.current()` is its configuration as last (hot-)reloaded. */
  readonly runtime?: {
    readonly config?: { readonly current?: () => unknown };
    /** Where OpenClaw keeps an agent's workspace, as it resolves it itself (its configuration is the host's type). */
    readonly agent?: { readonly resolveAgentWorkspaceDir?: (cfg: never, agentId: string) => string };
  };
  readonly logger: PluginLogger;
  // One overload per hook (not a generic over HookName), so the real API's generic `on`, whose
  // map has every hook, is checked against each handler this adapter registers.
  on(hookName: "before_prompt_build", handler: HookHandlers["before_prompt_build"], opts?: HookOptions): void;
  on(hookName: "before_agent_run", handler: HookHandlers["before_agent_run"], opts?: HookOptions): void;
  on(hookName: "before_tool_call", handler: HookHandlers["before_tool_call"], opts?: HookOptions): void;
  on(hookName: "after_tool_call", handler: HookHandlers["after_tool_call"], opts?: HookOptions): void;
  on(hookName: "llm_input", handler: HookHandlers["llm_input"], opts?: HookOptions): void;
  on(hookName: "agent_end", handler: HookHandlers["agent_end"], opts?: HookOptions): void;
  on(hookName: "message_received", handler: HookHandlers["message_received"], opts?: HookOptions): void;
  on(hookName: "message_sending", handler: HookHandlers["message_sending"], opts?: HookOptions): void;
  on(hookName: "subagent_spawned", handler: HookHandlers["subagent_spawned"], opts?: HookOptions): void;
  on(hookName: "subagent_ended", handler: HookHandlers["subagent_ended"], opts?: HookOptions): void;
  on(hookName: "session_end", handler: HookHandlers["session_end"], opts?: HookOptions): void;
  on(hookName: "before_message_write", handler: HookHandlers["before_message_write"], opts?: HookOptions): void;
  registerCommand(command: CommandDefinition): void;
  registerTool(tool: ToolFactory, opts?: { names?: string[]; optional?: boolean }): void;
  registerTrustedToolPolicy(policy: TrustedToolPolicy): void;
  registerService(service: PluginService): void;
  /** Allowed to installed plugins that are enabled and declare the runtimes in `contracts.agentToolResultMiddleware`. */
  registerAgentToolResultMiddleware(handler: ToolResultMiddleware, options?: { runtimes?: Array<"openclaw" | "codex"> }): void;
}

export interface PluginConfigSchema {
  safeParse: (value: unknown) => {
    success: boolean;
    data?: unknown;
    error?: { issues?: Array<{ path: Array<string | number>; message: string }> };
  };
  jsonSchema: Record<string, unknown>;
}

export interface PluginEntry {
  id: string;
  name: string;
  description: string;
  configSchema: PluginConfigSchema;
  register: (api: PluginApi) => void;
}
