import { z } from "zod";

/** The seed's default set: tools that act on the world or on the agent's own instructions. */
export const DEFAULT_GATED_TOOLS: readonly string[] = Object.freeze([
  "exec",
  "write",
  "edit",
  "apply_patch",
  "message",
  "gateway",
  "sessions_spawn",
  "sessions_send",
  "update_and_sign",
]);

const toolList = z.array(z.string().min(1));

export const sigRuntimeConfigSchema = z.strictObject({
  enforceVerification: z.boolean().default(false),
  gatedTools: toolList.default([...DEFAULT_GATED_TOOLS]),
  templatesDir: z.string().min(1).default("llm/prompts"),
  writeTools: toolList.default(["write", "edit"]),
  patchTools: toolList.default(["apply_patch"]),
  publicKey: z.string().optional(),
  signingKeyPath: z.string().min(1).optional(),
});

/** The guard's `sig` settings (the seed's `agents.defaults.sig`, plus the Ed25519 keys). */
export type SigRuntimeConfig = z.output<typeof sigRuntimeConfigSchema>;
export type SigRuntimeConfigInput = z.input<typeof sigRuntimeConfigSchema>;

export class SigRuntimeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SigRuntimeConfigError";
  }
}

/** Parses and defaults the settings; an error names the key and what was expected. */
export function parseSigRuntimeConfig(input: unknown, where = "sig"): SigRuntimeConfig {
  const parsed = sigRuntimeConfigSchema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue?.path.map(String).join(".") ?? "";
  throw new SigRuntimeConfigError(`${where}${key === "" ? "" : `.${key}`}: ${issue?.message ?? "invalid"}`);
}
