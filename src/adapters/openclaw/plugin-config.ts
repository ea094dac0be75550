import { z } from "zod";
import { ConfigError } from "../../core/config-error.js";
import { describeIssue } from "../../core/config.js";
import { guardConfigSchema } from "../../guard-config.js";

/**
 * The plugin's own keys, beside the guard's configuration: `console`, the owner's console in the
 * gateway process. Other front ends (Claude Code, the MCP proxy) have no gateway, so these keys
 * are not the guard's; how long a held call waits for the console's answer is the guard's
 * `approvalWaitSeconds`, the same for every front end.
 */
export const consoleConfigSchema = z.strictObject({
  /** Serve the owner's console from the gateway process, on loopback (off by default). */
  serve: z.boolean().default(false),
  /** The console's port on 127.0.0.1; 0 lets the system choose (the gateway log names the file with its URL). */
  port: z.int().min(0).max(65535).default(0),
});
export type PluginConsoleConfig = z.infer<typeof consoleConfigSchema>;

/** The plugin's whole configuration schema: the guard's, plus `console`. */
export const pluginConfigInputSchema = guardConfigSchema.extend({ console: consoleConfigSchema.optional() });

export interface SplitPluginConfig {
  /** What the guard validates and runs on (everything but `console`). */
  readonly guard: Record<string, unknown>;
  readonly console: PluginConsoleConfig;
}

/** Separates the plugin's keys from the guard's; a bad `console` value is a ConfigError naming it. */
export function splitPluginConfig(raw: unknown): SplitPluginConfig {
  const record = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const { console: consoleRaw, ...guard } = record;
  const parsed = consoleConfigSchema.safeParse(consoleRaw ?? {});
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => describeIssue({ ...issue, path: ["console", ...issue.path] }, record)));
  }
  return { guard: raw === undefined || raw === null ? {} : guard, console: parsed.data };
}
