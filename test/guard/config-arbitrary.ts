import fc from "fast-check";
import { ACTION_CLASSES } from "../../src/core/action-classes.js";
import { ARGUMENT_ROLES } from "../../src/core/argument-roles.js";
import { POLICY_MODES } from "../../src/core/policy-modes.js";
import { TRUST_LEVELS } from "../../src/core/trust-levels.js";

/** Tools the generated configs name: built-in ones of every kind, and one no list knows. */
export const CONFIG_TOOLS = ["exec", "read", "web_fetch", "message", "gateway", "browser", "write", "mystery", "apply_patch"] as const;

const tool = fc.constantFrom(...CONFIG_TOOLS);
const mode = fc.constantFrom(...POLICY_MODES);
const optional = { requiredKeys: [] as never[] };

const levelModes = (keys: readonly string[]) =>
  fc.record(Object.fromEntries(keys.map((k) => [k, mode])) as Record<string, fc.Arbitrary<(typeof POLICY_MODES)[number]>>, optional);

const POLICY_KEYS = [...TRUST_LEVELS, "system", "owner", "local"];

const policy = {
  taintPolicy: levelModes(POLICY_KEYS),
  toolOverrides: fc.dictionary(tool, levelModes(["*", ...POLICY_KEYS]), { maxKeys: 4 }),
  toolOutputTaints: fc.dictionary(tool, fc.constantFrom(...TRUST_LEVELS), { maxKeys: 4 }),
  toolActionClasses: fc.dictionary(tool, fc.constantFrom(...ACTION_CLASSES), { maxKeys: 4 }),
};

/**
 * Configurations that the schema accepts, built key by key rather than filtered out of random
 * values (a filter over `fc.anything()` only ever lets `{}` through). Any key may be absent.
 */
export const validConfig = fc.record(
  {
    ...policy,
    host: fc.constantFrom("openclaw", "claude-code"),
    approvalTtlSeconds: fc.integer({ min: 1, max: 86_400 }),
    approvalWaitSeconds: fc.integer({ min: 0, max: 600 }),
    maxIterations: fc.integer({ min: 1, max: 6 }),
    maxWrongApprovalAttempts: fc.integer({ min: 1, max: 100 }),
    developerMode: fc.boolean(),
    failMode: fc.constantFrom("open", "closed"),
    allowResetWhenOwnerUnknown: fc.boolean(),
    ownerIds: fc.array(fc.constantFrom("+15551234", "+15550000", "owner@example.com"), { maxLength: 2 }),
    memoryFiles: fc.array(fc.constantFrom("notes.txt", "docs/*.md", "plans/**"), { maxLength: 2 }),
    argumentProvenance: fc.boolean(),
    argumentProvenanceAtTrusted: fc.boolean(),
    crossSessionTaint: fc.boolean(),
    approvalScope: fc.constantFrom("call", "turn"),
    fileTrust: fc.dictionary(fc.constantFrom("downloads/**", "*.eml", "~/inbox/**", "notes.txt"), fc.constantFrom(...TRUST_LEVELS), { maxKeys: 2 }),
    execOutputTrust: fc.constantFrom("by-command", "tool"),
    execCommandTrust: fc.dictionary(fc.constantFrom("make", "git fetch", "curl", "*"), fc.constantFrom(...TRUST_LEVELS), { maxKeys: 2 }),
    structuredToolOutputs: fc.array(tool, { maxLength: 2 }),
    toolOperations: fc.dictionary(
      tool,
      fc.record({ words: fc.array(fc.constantFrom("run", "send", "delete", "pay"), { minLength: 1, maxLength: 2 }), irreversible: fc.boolean() }, optional),
      { maxKeys: 2 },
    ),
    toolArgumentRoles: fc.dictionary(tool, fc.dictionary(fc.constantFrom("path", "target", "command", "amount"), fc.constantFrom(...ARGUMENT_ROLES), { maxKeys: 2 }), {
      maxKeys: 2,
    }),
    agents: fc.dictionary(fc.constantFrom("main", "work"), fc.record(policy, optional), { maxKeys: 2 }),
  },
  optional,
);
