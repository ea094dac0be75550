import { z } from "zod";
import { ACTION_CLASSES, type ActionClass } from "../../core/action-classes.js";
import { ARGUMENT_ROLES, type ConfiguredRole } from "../../core/argument-roles.js";
import { TRUST_LEVELS, type TrustLevel } from "../../core/trust-levels.js";
import { AGENTDOJO_ARGUMENT_ROLES, AGENTDOJO_OPERATIONS, AGENTDOJO_STRUCTURED_OUTPUTS } from "./argument-roles.js";
import { CorpusError, SUITES, type SuiteName } from "./corpus.js";
import { nullPrototype } from "../../core/config-shape.js";

const toolEntry = z.strictObject({
  action: z.enum(ACTION_CLASSES),
  output: z.enum(TRUST_LEVELS),
  egress: z.boolean().optional(),
  args: z.record(z.string().min(1), z.enum(ARGUMENT_ROLES)).optional(),
});

const policyFile = z.object({
  about: z.string().optional(),
  suites: z.record(z.string(), z.record(z.string().min(1), toolEntry)),
});

export interface ToolEntry {
  readonly action: ActionClass;
  readonly output: TrustLevel;
  /** A read whose request itself can carry data out (a URL). */
  readonly egress: boolean;
  readonly args: Readonly<Record<string, ConfiguredRole>> | undefined;
}

export type SuitePolicy = Readonly<Record<string, ToolEntry>>;
export type ToolPolicyFile = Readonly<Partial<Record<SuiteName, SuitePolicy>>>;

/** Parses the corpus's `tool-policy.json` format; suites outside AgentDojo v1 are refused by name. */
export function parseToolPolicy(text: string, where: string): ToolPolicyFile {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (error) {
    throw new CorpusError(`${where}: not JSON (${(error as Error).message})`);
  }
  const parsed = policyFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CorpusError(`${where}: ${issue?.path.map(String).join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
  }
  const out: Partial<Record<SuiteName, SuitePolicy>> = {};
  for (const [suite, tools] of Object.entries(parsed.data.suites)) {
    if (!(SUITES as readonly string[]).includes(suite)) throw new CorpusError(`${where}: suites.${suite}: not an AgentDojo v1 suite (${SUITES.join(", ")})`);
    const entries = nullPrototype<ToolEntry>();
    for (const [tool, e] of Object.entries(tools)) entries[tool] = { action: e.action, output: e.output, egress: e.egress ?? false, args: e.args };
    out[suite as SuiteName] = entries;
  }
  return out;
}

export interface ArgumentProvenanceSetting {
  /** Under taint, a call whose arguments are determined by trusted data runs without asking. */
  readonly argumentProvenance: boolean;
  /** At trusted taint, a call whose target or amount no trusted field vouches for asks. */
  readonly atTrusted: boolean;
}

/**
 * The guard configuration a suite runs under: each tool's output trust and action class from the
 * policy, reads allowed at any taint (they have no side effect), side-effecting tools left to the
 * taint policy, and argument roles from the policy's `args` or else the built-in table. The
 * iteration cap is lifted: a replay makes one model step per call, and the cap guards against
 * runaway loops, which is not what is measured here.
 */
export function guardConfigFor(suite: SuiteName, policy: SuitePolicy, setting: ArgumentProvenanceSetting): Record<string, unknown> {
  const toolOutputTaints = nullPrototype<TrustLevel>();
  const toolActionClasses = nullPrototype<ActionClass>();
  const toolOverrides = nullPrototype<Record<string, string>>();
  const toolArgumentRoles = nullPrototype<Readonly<Record<string, ConfiguredRole>>>();
  for (const [tool, entry] of Object.entries(policy)) {
    toolOutputTaints[tool] = entry.output;
    toolActionClasses[tool] = entry.action;
    if (entry.action === "read") toolOverrides[tool] = { "*": "allow" };
    const roles = entry.args ?? AGENTDOJO_ARGUMENT_ROLES[suite][tool];
    if (roles !== undefined) toolArgumentRoles[tool] = roles;
  }
  return {
    toolOutputTaints,
    toolActionClasses,
    toolOverrides,
    toolArgumentRoles,
    toolOperations: AGENTDOJO_OPERATIONS[suite],
    structuredToolOutputs: AGENTDOJO_STRUCTURED_OUTPUTS[suite],
    argumentProvenance: setting.argumentProvenance,
    argumentProvenanceAtTrusted: setting.atTrusted,
    maxIterations: 10_000,
  };
}
