import { z } from "zod";
import { TEMPLATE_ENGINE_NAMES, isTemplateEngine } from "./template-engines.js";
import type { CustomPlaceholderPattern, TemplateEngine } from "./template-engines.js";

/** A `files` entry of `.sig/config.json`. */
export interface FilePolicy {
  readonly mutable?: boolean;
  readonly authorizedIdentities?: readonly string[];
  readonly requireSignedSource?: boolean;
  /** Advisory for the prompt; enforcement comes from requireSignedSource. */
  readonly requireApproval?: boolean;
}

/** `.sig/config.json`. Keys we do not know are kept, so sig's own settings survive a rewrite. */
export interface SigConfig {
  readonly version: 1;
  readonly templates?: {
    readonly engine?: TemplateEngine | readonly TemplateEngine[];
    readonly custom?: readonly CustomPlaceholderPattern[];
  };
  readonly sign?: {
    readonly algorithm?: "sha256";
    readonly identity?: string;
    readonly include?: readonly string[];
    readonly exclude?: readonly string[];
  };
  readonly files?: Readonly<Record<string, FilePolicy>>;
  readonly [key: string]: unknown;
}

export const DEFAULT_SIG_CONFIG: SigConfig = { version: 1 };

export class SigConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SigConfigError";
  }
}

const engineSchema = z.string().refine(isTemplateEngine, {
  message: `expected one of ${TEMPLATE_ENGINE_NAMES.join(", ")}`,
});

const policySchema = z.looseObject({
  mutable: z.boolean().optional(),
  authorizedIdentities: z.array(z.string()).optional(),
  requireSignedSource: z.boolean().optional(),
  requireApproval: z.boolean().optional(),
});

const configSchema = z.looseObject({
  version: z.literal(1),
  templates: z
    .looseObject({
      engine: z.union([engineSchema, z.array(engineSchema)]).optional(),
      custom: z.array(z.looseObject({ name: z.string(), patterns: z.array(z.string()) })).optional(),
    })
    .optional(),
  sign: z
    .looseObject({
      algorithm: z.literal("sha256").optional(),
      identity: z.string().optional(),
      include: z.array(z.string()).optional(),
      exclude: z.array(z.string()).optional(),
    })
    .optional(),
  files: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Parses `.sig/config.json` text. sig falls back to an empty config on any error, which silently
 * drops every file policy; here a broken config is an error that names the key.
 */
export function parseSigConfig(text: string, where = ".sig/config.json"): SigConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new SigConfigError(`${where}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw new SigConfigError(`${where}: ${describeIssue(parsed.error.issues[0])}`);
  const rawFiles = (raw as { files?: Record<string, unknown> }).files;
  if (rawFiles === undefined) return parsed.data as SigConfig;
  // Object.fromEntries defines own properties, so a "__proto__" pattern stays a plain key.
  const files = Object.fromEntries(
    Object.entries(rawFiles).map(([pattern, value]) => {
      const policy = policySchema.safeParse(value);
      if (!policy.success) {
        throw new SigConfigError(`${where}: files.${JSON.stringify(pattern)}: ${describeIssue(policy.error.issues[0])}`);
      }
      return [pattern, policy.data as FilePolicy];
    }),
  );
  return { ...(parsed.data as SigConfig), files };
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (issue === undefined) return "invalid";
  const path = issue.path.map(String).join(".");
  return path === "" ? issue.message : `${path}: ${issue.message}`;
}

export function serializeSigConfig(config: SigConfig): string {
  return JSON.stringify(config, null, 2) + "\n";
}

export function configuredEngines(config: SigConfig): readonly string[] | undefined {
  const engine = config.templates?.engine;
  if (engine === undefined) return undefined;
  return typeof engine === "string" ? [engine] : engine;
}
