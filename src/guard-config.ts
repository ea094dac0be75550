import { z } from "zod";
import { authConfigSchema, type AuthConfig } from "./auth/config.js";
import { ConfigError } from "./core/config-error.js";
import { configInputSchema, describeIssue, resolveConfig, type ResolvedConfig } from "./core/config.js";
import { checkConfigShape } from "./core/config-shape.js";
import { sigRuntimeConfigSchema, type SigRuntimeConfig } from "./sig/runtime-config.js";

/**
 * The whole configuration the guard accepts: the engine's keys, plus `sig` (prompt signing and
 * its gates) and `auth` (message authentication and intent scopes). The OpenClaw manifest's
 * `configSchema` is generated from this schema.
 */
export const guardConfigSchema = configInputSchema.extend({
  sig: sigRuntimeConfigSchema.optional(),
  auth: authConfigSchema.optional(),
});

export interface GuardConfig extends ResolvedConfig {
  readonly sig: SigRuntimeConfig;
  readonly auth: AuthConfig;
}

export interface GuardConfigResolution {
  readonly config: GuardConfig;
  readonly warnings: readonly string[];
}

/** Validates everything at once, so an owner sees every problem in one go; nothing starts half-configured. */
export function resolveGuardConfig(input: unknown): GuardConfigResolution {
  checkConfigShape(input);
  const parsed = guardConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => describeIssue(issue, input)));
  const { sig, auth, ...engine } = (input ?? {}) as Record<string, unknown>;
  const { config, warnings } = resolveConfig(engine);
  return {
    warnings,
    config: { ...config, sig: sigRuntimeConfigSchema.parse(sig ?? {}), auth: authConfigSchema.parse(auth ?? {}) },
  };
}

/** JSON Schema of the configuration, for manifests and editors. */
export function guardConfigJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(guardConfigSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}
