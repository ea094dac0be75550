import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "../../src/core/config-error.js";
import { describeIssue, resolveConfig } from "../../src/core/config.js";

function problems(input: unknown): string[] {
  try {
    resolveConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map((p) => `${p.key}: ${p.message}`);
  }
  throw new Error("expected a ConfigError");
}

const ROOT_KEYS =
  "taintPolicy, toolOverrides, toolOutputTaints, toolActionClasses, host, approvalTtlSeconds, approvalWaitSeconds, maxIterations, maxWrongApprovalAttempts, " +
  "developerMode, workspaceDir, failMode, allowResetWhenOwnerUnknown, ownerIds, memoryFiles, argumentProvenance, argumentProvenanceAtTrusted, " +
  "crossSessionTaint, approvalScope, fileTrust, execOutputTrust, execCommandTrust, toolArgumentRoles, toolOperations, structuredToolOutputs, agents";

describe("numeric settings accept their whole range and name the bound they break", () => {
  it.each([
    ["approvalTtlSeconds", 1, 86_400],
    ["approvalWaitSeconds", 0, 600],
    ["maxIterations", 1, 10_000],
    ["maxWrongApprovalAttempts", 1, 100],
  ] as const)("%s: %d to %d", (key, min, max) => {
    expect(resolveConfig({ [key]: min }).config[key]).toBe(min);
    expect(resolveConfig({ [key]: max }).config[key]).toBe(max);
    expect(problems({ [key]: min - 1 })).toEqual([`${key}: ${min - 1} is too small; minimum ${min}`]);
    expect(problems({ [key]: max + 1 })).toEqual([`${key}: ${max + 1} is too large; maximum ${max}`]);
  });
});

describe("text settings and map keys have length limits, named when broken", () => {
  it("workspaceDir must not be empty", () => {
    expect(resolveConfig({ workspaceDir: "/srv/agent" }).config.workspaceDir).toBe("/srv/agent");
    expect(problems({ workspaceDir: "" })).toEqual(['workspaceDir: "" is too small; minimum 1']);
  });

  it.each([
    ["fileTrust", 500],
    ["execCommandTrust", 200],
  ] as const)("a %s key may be up to %d characters", (setting, max) => {
    const longest = "k".repeat(max);
    expect(resolveConfig({ [setting]: { [longest]: "shared" } }).config[setting]).toEqual({ [longest]: "shared" });
    const tooLong = "k".repeat(max + 1);
    expect(problems({ [setting]: { [tooLong]: "shared" } })).toEqual([
      `${setting}.${tooLong}: the key is too long (${max + 1} characters); maximum ${max}`,
    ]);
    expect(problems({ [setting]: { "": "shared" } })).toEqual([`${setting}.: the key is too short (0 characters); minimum 1`]);
  });

  it("toolOperations words: at least one, each 1 to 100 characters", () => {
    const entry = { words: ["delete", "w".repeat(100)], irreversible: true };
    expect(resolveConfig({ toolOperations: { purge: entry } }).config.toolOperations).toEqual({ purge: entry });
    expect(problems({ toolOperations: { purge: { words: [] } } })).toEqual(["toolOperations.purge.words: [] is too small; minimum 1"]);
    expect(problems({ toolOperations: { purge: { words: [""] } } })).toEqual(['toolOperations.purge.words.0: "" is too small; minimum 1']);
    expect(problems({ toolOperations: { purge: { words: ["w".repeat(101)] } } })).toEqual([
      `toolOperations.purge.words.0: "${"w".repeat(101)}" is too large; maximum 100`,
    ]);
  });
});

describe("a map key a rule other than its length refuses", () => {
  it("is named with that rule's words", () => {
    const input = { r: { bad: 1 } };
    const issue = z.strictObject({ r: z.record(z.string().regex(/^ok/, "must start with ok"), z.number()) }).safeParse(input).error?.issues[0];
    expect(describeIssue(issue as z.core.$ZodIssue, input)).toEqual({ key: "r.bad", message: "the key is not valid: must start with ok" });
  });
});

describe("enumerated settings", () => {
  it("execOutputTrust is by-command or tool", () => {
    expect(resolveConfig({ execOutputTrust: "tool" }).config.execOutputTrust).toBe("tool");
    expect(resolveConfig({ execOutputTrust: "by-command" }).config.execOutputTrust).toBe("by-command");
    expect(problems({ execOutputTrust: "never" })).toEqual(['execOutputTrust: "never" is not allowed; expected one of "by-command", "tool"']);
  });
});

describe("file trust globs are checked at start", () => {
  it("an empty, NUL-bearing or negated glob is refused with the glob named, every one at once", () => {
    expect(problems({ fileTrust: { "!vendor/**": "trusted", " ": "shared", "a\0b": "external", "docs/**": "trusted" } })).toEqual([
      "fileTrust.!vendor/**: negation is not supported; list what each folder is instead",
      "fileTrust. : a glob must not be empty",
      "fileTrust.a\0b: a glob must not contain a NUL byte",
    ]);
  });
});

describe("an unknown key is named with the keys allowed where it stands", () => {
  it.each([
    [{ a: 1, b: 2 }, `(root): unknown keys "a", "b"; allowed: ${ROOT_KEYS}`],
    [{ taintPolicy: { hostile: "allow" } }, 'taintPolicy: unknown key "hostile"; allowed: trusted, shared, external, untrusted (legacy: system, owner, local)'],
    [{ agents: { w: { bogus: 1 } } }, 'agents.w: unknown key "bogus"; allowed: taintPolicy, toolOverrides, toolOutputTaints, toolActionClasses'],
    [
      { agents: { w: { taintPolicy: { hostile: "allow" } } } },
      'agents.w.taintPolicy: unknown key "hostile"; allowed: trusted, shared, external, untrusted (legacy: system, owner, local)',
    ],
    [
      { agents: { w: { toolOverrides: { exec: { hostile: "allow" } } } } },
      'agents.w.toolOverrides.exec: unknown key "hostile"; allowed: *, trusted, shared, external, untrusted',
    ],
    [{ toolOperations: { purge: { force: true } } }, 'toolOperations.purge: unknown key "force"; allowed: words, irreversible'],
  ])("%j", (input, expected) => {
    expect(problems(input)).toEqual([expected]);
  });

  it("where no list of keys is known, the unknown key alone is named", () => {
    const schema = z.strictObject({ sig: z.strictObject({ gate: z.boolean() }) });
    const input = { sig: { gate: true, hostile: 1 } };
    const issue = schema.safeParse(input).error?.issues[0];
    expect(issue).not.toBeUndefined();
    expect(describeIssue(issue as z.core.$ZodIssue, input)).toEqual({ key: "sig", message: 'unknown key "hostile"' });
  });
});

describe("the value shown in a problem", () => {
  it("is 'missing' when nothing was given", () => {
    expect(problems({ agents: { w: undefined } })).toEqual(["agents.w: missing is not valid; expected object"]);
  });

  it("is 'missing' when the path runs through something that is not an object, and describing never throws", () => {
    const issue = z.strictObject({ a: z.strictObject({ b: z.number() }) }).safeParse({ a: { b: "x" } }).error?.issues[0] as z.core.$ZodIssue;
    expect(describeIssue(issue, { a: { b: "x" } })).toEqual({ key: "a.b", message: '"x" is not valid; expected number' });
    for (const hostile of [{ a: null }, { a: "xy" }, { a: 7 }, null, "text"]) {
      expect(describeIssue(issue, hostile), JSON.stringify(hostile)).toEqual({ key: "a.b", message: "missing is not valid; expected number" });
    }
    const lengthIssue = { ...issue, path: ["a", "length"] } as z.core.$ZodIssue;
    expect(describeIssue(lengthIssue, { a: "xy" })).toEqual({ key: "a.length", message: "missing is not valid; expected number" });
  });

  it("with any other rule's own words after it", () => {
    const input = { n: 3 };
    const issue = z.strictObject({ n: z.number().refine((n) => n % 2 === 0, "must be even") }).safeParse(input).error?.issues[0];
    expect(describeIssue(issue as z.core.$ZodIssue, input)).toEqual({ key: "n", message: "3: must be even" });
  });
});
