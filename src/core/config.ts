import { z } from "zod";
import { ACTION_CLASSES, type ActionClass } from "./action-classes.js";
import { ARGUMENT_ROLES, type ToolArgumentRoles } from "./argument-roles.js";
import type { ToolOperationTable } from "./argument-operations.js";
import { ConfigError, type ConfigProblem } from "./config-error.js";
import { checkConfigShape, nullPrototype } from "./config-shape.js";
import { validateFileTrustGlob } from "./file-trust.js";
import { HOSTS, hostCatalogue, type HostName } from "./host-catalogue.js";
import { memoryFileMatcher } from "./memory-files.js";
import { POLICY_MODES, modeStrictness, mostPermissiveMode, type PolicyMode } from "./policy-modes.js";
import { TRUST_LEVELS, type TrustLevel } from "./trust-levels.js";

const LEGACY_TRUSTED_KEYS = ["system", "owner", "local"] as const;
const POLICY_KEYS = [...TRUST_LEVELS, ...LEGACY_TRUSTED_KEYS] as const;
const OVERRIDE_KEYS = ["*", ...POLICY_KEYS] as const;

const mode = z.enum(POLICY_MODES);
const trust = z.enum(TRUST_LEVELS);
const action = z.enum(ACTION_CLASSES);
const toolName = z.string().min(1).max(200);

const levelModes = (keys: readonly string[]) =>
  z.strictObject(Object.fromEntries(keys.map((k) => [k, mode.optional()])) as Record<string, z.ZodOptional<typeof mode>>);

const policyShape = {
  taintPolicy: levelModes(POLICY_KEYS).optional(),
  toolOverrides: z.record(toolName, levelModes(OVERRIDE_KEYS)).optional(),
  toolOutputTaints: z.record(toolName, trust).optional(),
  toolActionClasses: z.record(toolName, action).optional(),
};

const toolOperationShape = {
  words: z.array(z.string().min(1).max(100)).min(1).optional(),
  irreversible: z.boolean().optional(),
};

/** The plugin's configuration, as the owner writes it (all keys optional). */
export const configInputSchema = z.strictObject({
  ...policyShape,
  host: z.enum(HOSTS).optional(),
  approvalTtlSeconds: z.int().min(1).max(86_400).optional(),
  approvalWaitSeconds: z.int().min(0).max(600).optional(),
  maxIterations: z.int().min(1).max(10_000).optional(),
  maxWrongApprovalAttempts: z.int().min(1).max(100).optional(),
  developerMode: z.boolean().optional(),
  workspaceDir: z.string().min(1).optional(),
  failMode: z.enum(["open", "closed"]).optional(),
  allowResetWhenOwnerUnknown: z.boolean().optional(),
  ownerIds: z.array(z.string().min(1)).optional(),
  memoryFiles: z.array(z.string().min(1)).optional(),
  argumentProvenance: z.boolean().optional(),
  argumentProvenanceAtTrusted: z.boolean().optional(),
  crossSessionTaint: z.boolean().optional(),
  approvalScope: z.enum(["call", "turn"]).optional(),
  fileTrust: z.record(z.string().min(1).max(500), trust).optional(),
  execOutputTrust: z.enum(["by-command", "tool"]).optional(),
  execCommandTrust: z.record(z.string().min(1).max(200), trust).optional(),
  toolArgumentRoles: z.record(toolName, z.record(z.string().min(1).max(200), z.enum(ARGUMENT_ROLES))).optional(),
  toolOperations: z.record(toolName, z.strictObject(toolOperationShape)).optional(),
  structuredToolOutputs: z.array(toolName).optional(),
  agents: z.record(z.string().min(1), z.strictObject(policyShape)).optional(),
});
export type ConfigInput = z.input<typeof configInputSchema>;

export type LevelKey = TrustLevel | "*";
export type ToolOverride = Readonly<Partial<Record<LevelKey, PolicyMode>>>;

/** The part of the configuration that an agent may override. */
export interface PolicyConfig {
  readonly taintPolicy: Readonly<Record<TrustLevel, PolicyMode>>;
  readonly toolOverrides: Readonly<Record<string, ToolOverride>>;
  readonly toolOutputTaints: Readonly<Record<string, TrustLevel>>;
  readonly toolActionClasses: Readonly<Record<string, ActionClass>>;
}

export interface ResolvedConfig extends PolicyConfig {
  /** Whose tools the catalogue describes (core/host-catalogue.ts). */
  readonly host: HostName;
  readonly approvalTtlSeconds: number;
  /**
   * How long a front end that can keep a held call open (the MCP proxy, Claude Code's hooks) waits
   * for the owner's answer while a console shows its approvals inbox; 0 never waits.
   */
  readonly approvalWaitSeconds: number;
  readonly maxIterations: number;
  readonly maxWrongApprovalAttempts: number;
  readonly developerMode: boolean;
  readonly workspaceDir: string | undefined;
  readonly failMode: "open" | "closed";
  readonly allowResetWhenOwnerUnknown: boolean;
  readonly ownerIds: readonly string[];
  readonly memoryFiles: readonly string[];
  /** docs/argument-provenance.md: under taint, calls whose arguments trusted data determines run unasked. */
  readonly argumentProvenance: boolean;
  /** Also ask at trusted taint when a target or amount is vouched for by no trusted field. */
  readonly argumentProvenanceAtTrusted: boolean;
  /** docs/engine.md "Taint across sessions": content from another session carries its taint. */
  readonly crossSessionTaint: boolean;
  /** What a bare `.approve <tool> <code>` approves: the one call shown (default), or the tool for the turn (the seed). */
  readonly approvalScope: "call" | "turn";
  /** Globs to the trust of files read from there, tried before the defaults (core/file-trust.ts). */
  readonly fileTrust: Readonly<Record<string, TrustLevel>>;
  /** `by-command`: exec output trust from what the command does (core/exec-trust.ts); `tool`: the catalogue's, as in the seed. */
  readonly execOutputTrust: "by-command" | "tool";
  /** Per program (`make`) or program and subcommand (`git fetch`), `*` for any other: the trust of its output. */
  readonly execCommandTrust: Readonly<Record<string, TrustLevel>>;
  readonly toolArgumentRoles: ToolArgumentRoles;
  /** The operation of each side-effecting tool and the owner's words that ask for it (docs/argument-provenance.md). */
  readonly toolOperations: ToolOperationTable;
  /** Tools whose output is a structure the tool serialised itself: the owner can designate its records (docs/argument-provenance.md). */
  readonly structuredToolOutputs: readonly string[];
  readonly agents: Readonly<Record<string, PolicyConfig>>;
}

export const DEFAULT_TAINT_POLICY: Readonly<Record<TrustLevel, PolicyMode>> = Object.freeze({
  trusted: "allow",
  shared: "confirm",
  external: "confirm",
  untrusted: "confirm",
});

export const DEFAULTS = Object.freeze({
  approvalTtlSeconds: 60,
  // Under the MCP SDK's 60-second default request timeout, so the client still gets our answer.
  approvalWaitSeconds: 50,
  maxIterations: 10,
  maxWrongApprovalAttempts: 3,
  developerMode: false,
  failMode: "open" as const,
  allowResetWhenOwnerUnknown: false,
  // On: under taint, a call the owner's words and trusted data fully vouch for runs unasked
  // (docs/argument-provenance.md); `argumentProvenance: false` is the seed's plain high-water mark.
  argumentProvenance: true,
  // Off: only a policy that trusts output others write needs it (docs/agentdojo.md).
  argumentProvenanceAtTrusted: false,
  crossSessionTaint: true,
  approvalScope: "call" as const,
  execOutputTrust: "by-command" as const,
});

export interface ConfigResolution {
  readonly config: ResolvedConfig;
  /** Deprecations and auto-corrections, each worth one log line at start. */
  readonly warnings: readonly string[];
}

/** Validates and resolves a configuration, or throws a ConfigError naming every problem. */
export function resolveConfig(input: unknown): ConfigResolution {
  checkConfigShape(input);
  const parsed = configInputSchema.safeParse(input ?? {});
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => describeIssue(issue, input)));
  const raw = parsed.data;
  try {
    memoryFileMatcher(raw.memoryFiles ?? []);
  } catch (error) {
    throw new ConfigError([{ key: "memoryFiles", message: error instanceof Error ? error.message : String(error) }]);
  }
  const globProblems = Object.keys(raw.fileTrust ?? {}).flatMap((glob) => {
    const problem = validateFileTrustGlob(glob);
    return problem === null ? [] : [{ key: `fileTrust.${glob}`, message: problem }];
  });
  if (globProblems.length > 0) throw new ConfigError(globProblems);
  const warnings: string[] = [];
  const global = resolvePolicy(raw, DEFAULT_TAINT_POLICY, {}, "", warnings);
  const agents = nullPrototype<PolicyConfig>();
  for (const [agentId, agentRaw] of Object.entries(raw.agents ?? {})) {
    agents[agentId] = resolvePolicy(agentRaw, global.taintPolicy, global, `agents.${agentId}.`, warnings);
  }
  return {
    warnings,
    config: {
      ...global,
      host: raw.host ?? "openclaw",
      approvalTtlSeconds: raw.approvalTtlSeconds ?? DEFAULTS.approvalTtlSeconds,
      approvalWaitSeconds: raw.approvalWaitSeconds ?? DEFAULTS.approvalWaitSeconds,
      maxIterations: raw.maxIterations ?? DEFAULTS.maxIterations,
      maxWrongApprovalAttempts: raw.maxWrongApprovalAttempts ?? DEFAULTS.maxWrongApprovalAttempts,
      developerMode: raw.developerMode ?? DEFAULTS.developerMode,
      workspaceDir: raw.workspaceDir,
      failMode: raw.failMode ?? DEFAULTS.failMode,
      allowResetWhenOwnerUnknown: raw.allowResetWhenOwnerUnknown ?? DEFAULTS.allowResetWhenOwnerUnknown,
      ownerIds: raw.ownerIds ?? [],
      memoryFiles: raw.memoryFiles ?? [],
      argumentProvenance: raw.argumentProvenance ?? DEFAULTS.argumentProvenance,
      argumentProvenanceAtTrusted: raw.argumentProvenanceAtTrusted ?? DEFAULTS.argumentProvenanceAtTrusted,
      crossSessionTaint: raw.crossSessionTaint ?? DEFAULTS.crossSessionTaint,
      approvalScope: raw.approvalScope ?? DEFAULTS.approvalScope,
      fileTrust: nullPrototype(raw.fileTrust ?? {}),
      execOutputTrust: raw.execOutputTrust ?? DEFAULTS.execOutputTrust,
      execCommandTrust: nullPrototype(raw.execCommandTrust ?? {}),
      toolArgumentRoles: nullPrototype({ ...hostCatalogue(raw.host).argumentRoles, ...raw.toolArgumentRoles }),
      toolOperations: nullPrototype(raw.toolOperations ?? {}),
      structuredToolOutputs: raw.structuredToolOutputs ?? [],
      agents,
    },
  };
}

/** The configuration an agent runs under: its own overrides merged over the global ones. */
export function policyForAgent(config: ResolvedConfig, agentId: string | null | undefined): PolicyConfig {
  if (agentId === null || agentId === undefined || !Object.hasOwn(config.agents, agentId)) return config;
  return config.agents[agentId] ?? config;
}

type RawPolicy = z.output<z.ZodObject<typeof policyShape>>;

function resolvePolicy(
  raw: RawPolicy,
  basePolicy: Readonly<Record<TrustLevel, PolicyMode>>,
  base: Partial<PolicyConfig>,
  prefix: string,
  warnings: string[],
): PolicyConfig {
  const taintPolicy = { ...basePolicy, ...mapLegacyLevels(raw.taintPolicy ?? {}, `${prefix}taintPolicy`, warnings) };
  enforceMonotonicity(taintPolicy, `${prefix}taintPolicy`, warnings);
  const toolOverrides = nullPrototype<ToolOverride>(base.toolOverrides ?? {});
  for (const [tool, levels] of Object.entries(raw.toolOverrides ?? {})) {
    toolOverrides[tool] = mapLegacyLevels(levels, `${prefix}toolOverrides.${tool}`, warnings);
  }
  return {
    taintPolicy,
    toolOverrides,
    toolOutputTaints: nullPrototype({ ...(base.toolOutputTaints ?? {}), ...(raw.toolOutputTaints ?? {}) }),
    toolActionClasses: nullPrototype({ ...(base.toolActionClasses ?? {}), ...(raw.toolActionClasses ?? {}) }),
  };
}

/**
 * The old six-level model had `system`, `owner` and `local` above `shared`; they all mean
 * `trusted` now, and the most permissive of the three wins (that is how they behaved).
 */
function mapLegacyLevels<K extends string>(
  levels: Readonly<Partial<Record<string, PolicyMode | undefined>>>,
  where: string,
  warnings: string[],
): Partial<Record<K | TrustLevel, PolicyMode>> {
  const out = nullPrototype<PolicyMode>();
  const legacy: PolicyMode[] = [];
  for (const [key, value] of Object.entries(levels)) {
    if (value === undefined) continue;
    if ((LEGACY_TRUSTED_KEYS as readonly string[]).includes(key)) legacy.push(value);
    else out[key] = value;
  }
  if (legacy.length > 0) {
    const mapped = mostPermissiveMode(legacy);
    warnings.push(
      `${where}: the six-level keys system/owner/local are deprecated; mapped to trusted=${mapped}. Use the keys trusted, shared, external, untrusted.`,
    );
    if (out.trusted === undefined && mapped !== undefined) out.trusted = mapped;
  }
  return out as Partial<Record<K | TrustLevel, PolicyMode>>;
}

/** Less-trusted content may never be treated more permissively: raise any level that is. */
function enforceMonotonicity(policy: Record<TrustLevel, PolicyMode>, where: string, warnings: string[]): void {
  for (let i = 1; i < TRUST_LEVELS.length; i++) {
    const prev = TRUST_LEVELS[i - 1] as TrustLevel;
    const level = TRUST_LEVELS[i] as TrustLevel;
    if (modeStrictness(policy[level]) < modeStrictness(policy[prev])) {
      warnings.push(
        `${where}.${level}: "${policy[level]}" is more permissive than ${prev}="${policy[prev]}"; corrected to "${policy[prev]}" (a policy must not loosen as trust falls)`,
      );
      policy[level] = policy[prev];
    }
  }
}

/** One validation issue as a problem an owner can act on: the key, the value given, what is allowed. */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown): ConfigProblem {
  const key = issue.path.length > 0 ? issue.path.map(String).join(".") : "(root)";
  const given = valueAt(input, issue.path);
  const shown = given === undefined ? "missing" : JSON.stringify(given);
  switch (issue.code) {
    case "unrecognized_keys": {
      const allowed = allowedKeysAt(issue.path);
      return {
        key,
        message: `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}${allowed ? `; allowed: ${allowed}` : ""}`,
      };
    }
    case "invalid_value":
      return { key, message: `${shown} is not allowed; expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}` };
    case "invalid_type":
      return { key, message: `${shown} is not valid; expected ${issue.expected}` };
    case "too_small":
      return { key, message: `${shown} is too small; minimum ${String(issue.minimum)}` };
    case "too_big":
      return { key, message: `${shown} is too large; maximum ${String(issue.maximum)}` };
    case "invalid_key": {
      // The value at the path is the entry's, not the key's: show the key's length and its limit.
      const length = String(issue.path[issue.path.length - 1] ?? "").length;
      const inner = issue.issues[0];
      if (inner?.code === "too_big") return { key, message: `the key is too long (${length} characters); maximum ${String(inner.maximum)}` };
      if (inner?.code === "too_small") return { key, message: `the key is too short (${length} characters); minimum ${String(inner.minimum)}` };
      return { key, message: `the key is not valid: ${inner?.message ?? issue.message}` };
    }
    default:
      return { key, message: `${shown}: ${issue.message}` };
  }
}

function allowedKeysAt(path: readonly PropertyKey[]): string | undefined {
  if (path.length === 0) return Object.keys(configInputSchema.shape).join(", ");
  const last = path[path.length - 1];
  if (last === "taintPolicy") return TRUST_LEVELS.join(", ") + " (legacy: system, owner, local)";
  if (path.length >= 2 && path[path.length - 2] === "toolOverrides") return `*, ${TRUST_LEVELS.join(", ")}`;
  if (path.length === 2 && path[0] === "agents") return Object.keys(policyShape).join(", ");
  if (path.length === 2 && path[0] === "toolOperations") return Object.keys(toolOperationShape).join(", ");
  return undefined;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}
