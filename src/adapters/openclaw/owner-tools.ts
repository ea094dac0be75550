import { SIG_OWNER_TOOLS } from "../../sig/owner-tools.js";
import type { AdapterGuard } from "./provenant-plugin.js";
import type { AgentTool, ToolFactory, ToolFactoryContext, ToolParameterSchema } from "./sdk-types.js";

export const OWNER_TOOL_NAMES: readonly string[] = SIG_OWNER_TOOLS.map((t) => t.name);

/**
 * The guard's owner-only prompt-signing tools, `verify` and `update_and_sign`, as OpenClaw tools.
 * They are not offered to a run whose requester OpenClaw says is not the owner; whether a call
 * may run is still the guard's decision (its trusted tool policy ran before `execute`, and the
 * signing runtime checks the owner again), so a run where the owner bit is unknown sees them.
 */
export function ownerToolFactory(resolve: (ctx: ToolFactoryContext) => { guard: AdapterGuard; sessionId: string } | null): ToolFactory {
  return (ctx) => {
    if (ctx.senderIsOwner === false) return null;
    const target = resolve(ctx);
    if (target === null) return null;
    return SIG_OWNER_TOOLS.map(
      (definition): AgentTool => ({
        name: definition.name,
        label: definition.name,
        description: definition.description,
        parameters: definition.parameters as ToolParameterSchema,
        async execute(toolCallId, params) {
          const result = target.guard.runOwnerTool(target.sessionId, {
            id: toolCallId,
            tool: definition.name,
            params: params !== null && typeof params === "object" ? (params as Record<string, unknown>) : {},
          });
          return { content: [{ type: "text", text: JSON.stringify(result ?? { error: "prompt signing is not available" }, null, 2) }], details: result ?? null };
        },
      }),
    );
  };
}
