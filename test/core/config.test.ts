import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ConfigError } from "../../src/core/config-error.js";
import { DEFAULT_TAINT_POLICY, resolveConfig } from "../../src/core/config.js";
import { POLICY_MODES, modeStrictness } from "../../src/core/policy-modes.js";
import { TRUST_LEVELS } from "../../src/core/trust-levels.js";

function problems(input: unknown): string[] {
  try {
    resolveConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map((p) => `${p.key}: ${p.message}`);
  }
  throw new Error("expected a ConfigError");
}

describe("Configuration Reference", () => {
  it("defaults match the seed's table", () => {
    const { config, warnings } = resolveConfig({});
    expect(warnings).toEqual([]);
    expect(config.taintPolicy).toEqual(DEFAULT_TAINT_POLICY);
    expect(config.taintPolicy).toEqual({ trusted: "allow", shared: "confirm", external: "confirm", untrusted: "confirm" });
    expect(config.toolOverrides).toEqual({});
    expect(config.approvalTtlSeconds).toBe(60);
    expect(config.maxIterations).toBe(10);
    expect(config.developerMode).toBe(false);
    expect(config.toolOutputTaints).toEqual({});
    expect(config.failMode).toBe("open");
    expect(config.allowResetWhenOwnerUnknown).toBe(false);
  });

  it("accepts undefined and null as the empty configuration", () => {
    expect(resolveConfig(undefined).config.maxIterations).toBe(10);
    expect(resolveConfig(null).config.maxIterations).toBe(10);
  });

  it("names the key, the value and what is allowed", () => {
    expect(problems({ taintPolicy: { untrusted: "deny" } })).toEqual([
      'taintPolicy.untrusted: "deny" is not allowed; expected one of "allow", "confirm", "restrict"',
    ]);
    expect(problems({ toolOutputTaints: { web_fetch: "owner" } })).toEqual([
      'toolOutputTaints.web_fetch: "owner" is not allowed; expected one of "trusted", "shared", "external", "untrusted"',
    ]);
    expect(problems({ approvalTtlSeconds: 0 })).toEqual(["approvalTtlSeconds: 0 is too small; minimum 1"]);
    expect(problems({ maxIterations: "ten" })).toEqual(['maxIterations: "ten" is not valid; expected number']);
    expect(problems({ taintPolicly: {} })[0]).toMatch(/^\(root\): unknown key "taintPolicly"; allowed: taintPolicy, /);
    expect(problems({ toolOverrides: { exec: { hostile: "allow" } } })).toEqual([
      'toolOverrides.exec: unknown key "hostile"; allowed: *, trusted, shared, external, untrusted',
    ]);
  });

  it("reports every problem at once", () => {
    expect(problems({ developerMode: "yes", failMode: "sometimes" })).toHaveLength(2);
  });

  it("rejects a non-object configuration", () => {
    expect(problems([1, 2])).toEqual(["(root): [1,2] is not valid; expected object"]);
  });
});

describe("Backward Compatibility", () => {
  it("maps system/owner/local to trusted using the most permissive, with a deprecation warning", () => {
    const { config, warnings } = resolveConfig({ taintPolicy: { system: "allow", owner: "confirm", local: "restrict", shared: "confirm" } });
    expect(config.taintPolicy.trusted).toBe("allow");
    expect(config.taintPolicy.shared).toBe("confirm");
    expect(warnings.some((w) => w.includes("deprecated"))).toBe(true);
  });

  it("maps six-level keys in toolOverrides too", () => {
    const { config, warnings } = resolveConfig({ toolOverrides: { exec: { owner: "allow", untrusted: "restrict" } } });
    expect(config.toolOverrides.exec).toEqual({ trusted: "allow", untrusted: "restrict" });
    expect(warnings).toHaveLength(1);
  });
});

describe("Taint Policy monotonicity", () => {
  it("auto-corrects a policy that loosens as trust falls, with a warning", () => {
    const { config, warnings } = resolveConfig({ taintPolicy: { shared: "restrict", external: "allow", untrusted: "confirm" } });
    expect(config.taintPolicy).toEqual({ trusted: "allow", shared: "restrict", external: "restrict", untrusted: "restrict" });
    expect(warnings).toHaveLength(2);
  });

  it("any policy that validates resolves to a monotone one", () => {
    const mode = fc.constantFrom(...POLICY_MODES);
    fc.assert(
      fc.property(fc.record({ trusted: mode, shared: mode, external: mode, untrusted: mode }, { requiredKeys: [] }), (taintPolicy) => {
        const { config } = resolveConfig({ taintPolicy });
        for (let i = 1; i < TRUST_LEVELS.length; i++) {
          const prev = config.taintPolicy[TRUST_LEVELS[i - 1]!];
          const cur = config.taintPolicy[TRUST_LEVELS[i]!];
          expect(modeStrictness(cur)).toBeGreaterThanOrEqual(modeStrictness(prev));
        }
      }),
    );
  });
});

describe("per-agent overrides", () => {
  it("merge the agent's maps over the global ones", () => {
    const { config } = resolveConfig({
      taintPolicy: { untrusted: "confirm" },
      toolOverrides: { exec: { "*": "confirm" } },
      agents: { work: { taintPolicy: { untrusted: "restrict" }, toolOverrides: { browser: { "*": "restrict" } } } },
    });
    const work = config.agents.work!;
    expect(work.taintPolicy.untrusted).toBe("restrict");
    expect(work.toolOverrides).toEqual({ exec: { "*": "confirm" }, browser: { "*": "restrict" } });
  });
});

describe("memoryFiles", () => {
  it("a bad pattern is reported at start, not at the first write", () => {
    expect(problems({ memoryFiles: ["../outside.md"] })).toEqual(['memoryFiles: protected file pattern "../outside.md": must not contain \'..\'']);
    expect(resolveConfig({ memoryFiles: ["notes/*.md"] }).config.memoryFiles).toEqual(["notes/*.md"]);
  });
});
