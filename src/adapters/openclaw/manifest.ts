import { pluginConfigJsonSchema } from "./config-schema.js";
import { OWNER_TOOL_NAMES } from "./owner-tools.js";
import { PLUGIN_ID } from "./host-config.js";
import { TOOL_RESULT_RUNTIMES, TRUSTED_POLICY_ID } from "./provenant-plugin.js";

/**
 * The content of `openclaw.plugin.json`. `activation.onStartup` because the gate must be in place
 * before the first turn; `contracts` declares the trusted tool policy (installed plugins must, to
 * run before ordinary hooks) and the owner-only tools the plugin registers.
 */
export function openclawManifest(): Record<string, unknown> {
  return {
    id: PLUGIN_ID,
    name: "provenant",
    description: "Provenance taint tracking and tool-call policy for OpenClaw agents: untrusted content in the context cannot drive dangerous tools.",
    activation: { onStartup: true },
    contracts: { trustedToolPolicies: [TRUSTED_POLICY_ID], agentToolResultMiddleware: [...TOOL_RESULT_RUNTIMES], tools: [...OWNER_TOOL_NAMES] },
    configSchema: pluginConfigJsonSchema(),
  };
}
