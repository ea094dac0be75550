import { z } from "zod";
import { ACTION_CLASSES } from "../core/action-classes.js";

const actionClassList = z.array(z.enum(ACTION_CLASSES));

/**
 * `off` runs no envelope check; `warn` checks and logs failures but lets the turn through (the
 * seed's rollout path); `enforce` rejects every inbound instruction that does not verify.
 */
export const authModeSchema = z.enum(["off", "warn", "enforce"]);
export type AuthMode = z.infer<typeof authModeSchema>;

/** The action classes each message source may authorise (RFC-001 "Per-source permissions"). */
export const sourcePermissionsSchema = z
  .object({
    human: actionClassList.default([...ACTION_CLASSES]),
    agent: actionClassList.default(["read"]),
    system: z
      .object({
        /** Classes for a system turn whose job declares none. */
        default: actionClassList.default(["read"]),
        /** Per cron or heartbeat job id: the classes its declared purpose needs. */
        jobs: z.record(z.string().min(1), actionClassList).default({}),
      })
      .strict()
      .default({ default: ["read"], jobs: {} }),
  })
  .strict();
export type SourcePermissions = z.infer<typeof sourcePermissionsSchema>;

/** Verb lexicon for intent inference: for each side-effecting class, the words that ask for it. */
export const intentLexiconSchema = z
  .object({
    write: z.array(z.string().min(1)).optional(),
    send: z.array(z.string().min(1)).optional(),
    exec: z.array(z.string().min(1)).optional(),
    trade: z.array(z.string().min(1)).optional(),
  })
  .strict();
export type IntentLexiconConfig = z.infer<typeof intentLexiconSchema>;

export const authConfigSchema = z
  .object({
    mode: authModeSchema.default("off"),
    /** Per-agent opt-in: agent id → mode, overriding `mode` for that agent. */
    agents: z.record(z.string().min(1), authModeSchema).default({}),
    /** How old an envelope may be, in seconds (RFC-001 asks for a timestamp; 300 s by default). */
    freshnessSeconds: z.number().int().min(1).max(86_400).default(300),
    /** How far ahead of our clock an envelope's timestamp may be (sender clock skew). */
    futureSkewSeconds: z.number().int().min(0).max(3_600).default(30),
    /** Upper bound on remembered message ids; beyond it new envelopes are refused, not old ids forgotten. */
    replayCacheSize: z.number().int().min(1).max(10_000_000).default(100_000),
    /** Key file (mode 0600) shared by the processes of one gateway; without it a key is generated at start. */
    keyFile: z.string().min(1).optional(),
    /** Peer agents allowed to send inter-agent messages, as `agent:<id>:*` or exact session keys. */
    peers: z.array(z.string().regex(/^agent:[^\s:*]+(:[^\s*]+)*(:\*)?$/, "expected agent:<id>:* or agent:<id>:<...>")).default([]),
    /** An agent-sourced call outside its scope asks the owner for an approval code (`approval`) or is blocked. */
    agentEscalation: z.enum(["approval", "block"]).default("approval"),
    sources: sourcePermissionsSchema.default({
      human: [...ACTION_CLASSES],
      agent: ["read"],
      system: { default: ["read"], jobs: {} },
    }),
    /** Words added to the built-in lexicon per class (`replace: true` drops the built-in words). */
    lexicon: z
      .object({ replace: z.boolean().default(false), words: intentLexiconSchema.default({}) })
      .strict()
      .default({ replace: false, words: {} }),
    /** Tool results without a valid MAC: `report` logs and marks them untrusted, `block` also withholds them. */
    toolResultMac: z.enum(["off", "report", "block"]).default("report"),
  })
  .strict();

export type AuthConfig = z.infer<typeof authConfigSchema>;
export type AuthConfigInput = z.input<typeof authConfigSchema>;

export function parseAuthConfig(input: unknown): AuthConfig {
  return authConfigSchema.parse(input ?? {});
}

/** The mode in force for one agent: its own opt-in if it has one, else the default. */
export function authModeFor(config: AuthConfig, agentId: string | null | undefined): AuthMode {
  if (agentId !== null && agentId !== undefined) {
    const own = config.agents[agentId.trim()];
    if (own !== undefined) return own;
  }
  return config.mode;
}
