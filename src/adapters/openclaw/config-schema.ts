import { z } from "zod";
import { ConfigError } from "../../core/config-error.js";
import { resolveGuardConfig } from "../../guard-config.js";
import { pluginConfigInputSchema, splitPluginConfig } from "./plugin-config.js";
import type { PluginConfigSchema } from "./sdk-types.js";

/**
 * The plugin's configuration schema as JSON Schema: the guard's whole configuration (engine,
 * `sig`, `auth`) and the plugin's `console`. `openclaw.plugin.json` carries a copy so OpenClaw can validate
 * `plugins.entries.provenant.config` without running plugin code; a test keeps the copy in step.
 */
export function pluginConfigJsonSchema(): Record<string, unknown> {
  const schema = { ...(z.toJSONSchema(pluginConfigInputSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>) };
  delete schema.$schema;
  return schema;
}

/** The runtime schema handed to OpenClaw: the guard's own validation, with its precise messages. */
export const pluginConfigSchema: PluginConfigSchema = {
  safeParse(value: unknown) {
    try {
      resolveGuardConfig(splitPluginConfig(value).guard);
      return { success: true, data: value ?? {} };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return {
        success: false,
        error: { issues: error.problems.map((p) => ({ path: p.key === "(root)" ? [] : p.key.split("."), message: p.message })) },
      };
    }
  },
  get jsonSchema() {
    return pluginConfigJsonSchema();
  },
};
