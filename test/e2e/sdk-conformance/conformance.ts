/**
 * Compiled against the real `openclaw` 2026.9.6 declarations (see tsconfig.json here and
 * sdk-conformance.test.ts): every shape the adapter declares in sdk-types.ts is handed to the
 * real plugin API, so a field the SDK renamed, retyped or dropped fails this build. The entry
 * (src/adapters/openclaw/index.ts) is compiled here too, against the real `definePluginEntry`.
 */
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import type { CommandDefinition, HookHandlers, PluginApi, PluginService, ToolFactory, ToolResultMiddleware, TrustedToolPolicy } from "../../../src/adapters/openclaw/sdk-types.js";

declare const api: OpenClawPluginApi;
declare const hooks: HookHandlers;
declare const command: CommandDefinition;
declare const tool: ToolFactory;
declare const policy: TrustedToolPolicy;
declare const middleware: ToolResultMiddleware;
declare const service: PluginService;

api.on("before_prompt_build", hooks.before_prompt_build);
api.on("before_agent_run", hooks.before_agent_run);
api.on("before_tool_call", hooks.before_tool_call);
api.on("after_tool_call", hooks.after_tool_call);
api.on("llm_input", hooks.llm_input);
api.on("agent_end", hooks.agent_end);
api.on("message_received", hooks.message_received);
api.on("message_sending", hooks.message_sending);
api.on("subagent_spawned", hooks.subagent_spawned);
api.on("subagent_ended", hooks.subagent_ended);
api.on("session_end", hooks.session_end);
api.on("before_message_write", hooks.before_message_write);
api.registerCommand(command);
api.registerTool(tool);
api.registerTrustedToolPolicy(policy);
api.registerAgentToolResultMiddleware(middleware, { runtimes: ["openclaw", "codex"] });
api.registerService(service);

/** The real API provides everything the adapter calls, with compatible types. */
export const subset: PluginApi = api;
