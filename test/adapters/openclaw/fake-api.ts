import { rmSync } from "node:fs";
import { join } from "node:path";
import { Guard } from "../../../src/guard.js";
import { registerProvenant } from "../../../src/adapters/openclaw/provenant-plugin.js";
import { splitPluginConfig } from "../../../src/adapters/openclaw/plugin-config.js";
import type {
  BeforeToolCallResult,
  CommandDefinition,
  HookHandlers,
  HookName,
  PluginApi,
  PluginService,
  ToolFactory,
  ToolResultMiddleware,
  TrustedToolPolicy,
} from "../../../src/adapters/openclaw/sdk-types.js";
import { tempDir } from "../../temp-dirs.js";

/** Records the console service the plugin asks for; tests start it themselves. */
const consoleService = (workspace: () => string, port: number): PluginService => ({ id: `console ${port} ${workspace()}`, start: () => undefined });

/**
 * A stand-in for OpenClaw's registration API that records what the plugin registers and lets a
 * test fire hooks in OpenClaw's order. The guard behind it is the real one, on a temporary
 * workspace (its watermarks and ledger are real files).
 */
export class FakeOpenClaw {
  readonly hooks = new Map<HookName, HookHandlers[HookName]>();
  readonly commands = new Map<string, CommandDefinition>();
  readonly tools: ToolFactory[] = [];
  policy: TrustedToolPolicy | null = null;
  middleware: ToolResultMiddleware | null = null;
  readonly services: PluginService[] = [];
  withoutTrustedPolicies = false;
  /** An OpenClaw whose registration API has no tool-result middleware. */
  withoutResultMiddleware = false;
  readonly logs: string[] = [];
  readonly workspace: string;
  /** OpenClaw's configuration as reloaded since registration (`api.runtime.config.current()`); unset: as registered. */
  liveConfig: unknown;

  constructor(
    readonly pluginConfig: Record<string, unknown> = {},
    readonly openclawConfig: unknown = { plugins: { entries: { provenant: { hooks: { allowConversationAccess: true } } } } },
    workspace?: string,
  ) {
    this.workspace = workspace ?? tempDir("provenant-openclaw-unit-");
  }

  register(): this {
    const api: PluginApi = {
      id: "provenant",
      pluginConfig: this.pluginConfig,
      config: this.hostConfig(),
      runtime: {
        config: { current: () => this.liveConfig ?? this.openclawConfig },
        // As OpenClaw resolves an agent's workspace: the main agent's is the test's, another's beside it.
        agent: { resolveAgentWorkspaceDir: (_cfg: never, agentId: string) => this.workspaceOf(agentId) },
      },
      logger: { info: (m) => this.logs.push(`info ${m}`), warn: (m) => this.logs.push(`warn ${m}`), error: (m) => this.logs.push(`error ${m}`) },
      on: ((name: HookName, handler: HookHandlers[HookName]) => {
        this.hooks.set(name, handler);
      }) as PluginApi["on"],
      registerCommand: (c) => this.commands.set(c.name, c),
      registerTool: (t) => this.tools.push(t),
      registerTrustedToolPolicy: (p) => {
        this.policy = p;
      },
      registerAgentToolResultMiddleware: (m) => {
        this.middleware = m;
      },
      registerService: (service) => this.services.push(service),
    };
    // An older OpenClaw: no trusted tool policies, the gate is an ordinary before_tool_call hook.
    if (this.withoutTrustedPolicies) delete (api as Partial<PluginApi>).registerTrustedToolPolicy;
    if (this.withoutResultMiddleware) delete (api as Partial<PluginApi>).registerAgentToolResultMiddleware;
    registerProvenant(api, (dir, logger) => Guard.open({ config: splitPluginConfig(this.pluginConfig).guard, workspaceDir: dir, logger }), consoleService);
    return this;
  }

  /**
   * OpenClaw's configuration as registered, with the test's workspace as the agents' default where
   * it names none: what no hook places in a workspace lands there, never in the real home's.
   */
  private hostConfig(): unknown {
    const config = this.openclawConfig;
    if (config === null || typeof config !== "object") return config;
    const agents = (config as { agents?: { defaults?: Record<string, unknown> } }).agents;
    if (typeof agents?.defaults?.workspace === "string") return config;
    return { ...config, agents: { ...agents, defaults: { ...agents?.defaults, workspace: this.workspace } } };
  }

  /** Where the stand-in host keeps an agent's workspace. */
  workspaceOf(agentId: string): string {
    return agentId === "main" ? this.workspace : join(this.workspace, "agents", agentId);
  }

  hook<K extends HookName>(name: K): HookHandlers[K] {
    const handler = this.hooks.get(name);
    if (handler === undefined) throw new Error(`${name} not registered`);
    return handler as HookHandlers[K];
  }

  /** One owner turn's opening hooks, as the embedded runner fires them. */
  startTurn(sessionId: string, text: string, opts: { senderIsOwner?: boolean; ctx?: Record<string, unknown>; systemPrompt?: string } = {}): void {
    const ctx = { sessionId, sessionKey: `agent:main:${sessionId}`, agentId: "main", workspaceDir: this.workspace, trigger: "user", runId: `run-${sessionId}`, ...opts.ctx };
    this.hook("before_prompt_build")({ prompt: text, messages: [] }, ctx);
    const owner = opts.senderIsOwner !== undefined ? { senderIsOwner: opts.senderIsOwner } : {};
    this.hook("before_agent_run")({ prompt: text, messages: [], ...owner, ...(opts.systemPrompt !== undefined ? { systemPrompt: opts.systemPrompt } : {}) }, ctx);
  }

  /** The policy's answer when it decides at once (it waits only while a console is watching). */
  callTool(...args: Parameters<FakeOpenClaw["callToolAsync"]>): BeforeToolCallResult | void {
    const result = this.callToolAsync(...args);
    if (result instanceof Promise) throw new Error(`${args[1]}: the policy is waiting for the owner; use callToolAsync`);
    return result;
  }

  callToolAsync(sessionId: string, tool: string, params: Record<string, unknown>, requester: Record<string, unknown> = { senderIsOwner: true }, toolCallId = `${tool}-1`) {
    const event = { toolName: tool, params };
    const ctx = { toolName: tool, sessionId, sessionKey: `agent:main:${sessionId}`, toolCallId, requester };
    if (this.policy === null) return this.hook("before_tool_call")(event, ctx);
    return this.policy.evaluate(event, ctx);
  }

  /** A tool's result as OpenClaw delivers it: through the middleware, then `after_tool_call`. */
  toolResult(sessionId: string, tool: string, result: unknown, details: unknown = null): void {
    const text = typeof result === "string" ? result : JSON.stringify(result);
    const content = [{ type: "text" as const, text }];
    this.middleware?.({ toolCallId: `${tool}-1`, toolName: tool, args: {}, result: { content, details } }, { runtime: "openclaw", sessionId });
    this.hook("after_tool_call")({ toolName: tool, params: {}, result: details === null ? result : { content, details } }, { toolName: tool, sessionId, sessionKey: `agent:main:${sessionId}`, toolCallId: `${tool}-1` });
  }

  /**
   * A message the host writes into the session's transcript (`before_message_write`). The embedded
   * runner names the session in the hook's context only; other writers name it in the event.
   * Returns what the plugin asks the host to write instead, if anything.
   */
  writeMessage(sessionId: string, message: unknown, keyIn: "context" | "event" = "context"): { message?: unknown } | void {
    const sessionKey = `agent:main:${sessionId}`;
    if (keyIn === "context") return this.hook("before_message_write")({ message }, { agentId: "main", sessionKey });
    return this.hook("before_message_write")({ message, sessionKey, agentId: "main" }, { agentId: "main" });
  }

  endTurn(sessionId: string): void {
    this.hook("agent_end")({ messages: [], success: true }, { sessionId, sessionKey: `agent:main:${sessionId}`, workspaceDir: this.workspace });
  }

  dispose(): void {
    rmSync(this.workspace, { recursive: true, force: true });
  }
}
