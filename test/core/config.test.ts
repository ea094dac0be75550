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

describe("every setting has its documented default", () => {
  it("an empty configuration resolves to the defaults", () => {
    const { toolArgumentRoles: _roles, ...config } = resolveConfig({}).config;
    expect(config).toEqual({
      taintPolicy: { trusted: "allow", shared: "confirm", external: "confirm", untrusted: "confirm" },
      toolOverrides: {},
      toolOutputTaints: {},
      toolActionClasses: {},
      host: "openclaw",
      approvalTtlSeconds: 60,
      approvalWaitSeconds: 50,
      maxIterations: 10,
      maxWrongApprovalAttempts: 3,
      developerMode: false,
      workspaceDir: undefined,
      failMode: "open",
      allowResetWhenOwnerUnknown: false,
      ownerIds: [],
      memoryFiles: [],
      argumentProvenance: true,
      argumentProvenanceAtTrusted: false,
      crossSessionTaint: true,
      approvalScope: "call",
      fileTrust: {},
      execOutputTrust: "by-command",
      execCommandTrust: {},
      toolOperations: {},
      structuredToolOutputs: [],
      agents: {},
    });
  });

  it("the host's egress reads are argument roles by default, and a tool the owner names takes the owner's roles", () => {
    const fileEgress = { pdf: { pdf: "egress", pdfs: "egress" }, view_image: { path: "egress", paths: "egress" } };
    const gatewayEgress = { file_fetch: { gatewayUrl: "egress" }, dir_list: { gatewayUrl: "egress" }, dir_fetch: { gatewayUrl: "egress" } };
    expect(resolveConfig({}).config.toolArgumentRoles).toEqual({ web_fetch: { url: "egress" }, web_search: { query: "egress" }, x_search: { query: "egress" }, ...fileEgress, ...gatewayEgress });
    expect(resolveConfig({ host: "claude-code" }).config.toolArgumentRoles).toEqual({ WebFetch: { url: "egress" }, WebSearch: { query: "egress" }, ReadMcpResourceTool: { uri: "egress" } });
    expect(resolveConfig({ toolArgumentRoles: { web_fetch: { url: "detail" } } }).config.toolArgumentRoles).toEqual({ web_fetch: { url: "detail" }, web_search: { query: "egress" }, x_search: { query: "egress" }, ...fileEgress, ...gatewayEgress });
  });

  it("a value given replaces the default", () => {
    const given = {
      ownerIds: ["telegram:42"],
      memoryFiles: ["notes/*.md"],
      argumentProvenance: false,
      crossSessionTaint: false,
      fileTrust: { "docs/**": "trusted" },
      execCommandTrust: { make: "shared" },
      toolOperations: { purge: { words: ["purge"], irreversible: true } },
    } as const;
    expect(resolveConfig(given).config).toMatchObject(given);
  });
});

describe("warnings name where in the configuration they arise", () => {
  it("global, per-tool and per-agent keys each carry their own path", () => {
    const { warnings } = resolveConfig({
      taintPolicy: { external: "allow" },
      toolOverrides: { exec: { local: "allow" } },
      agents: { w: { taintPolicy: { system: "allow", untrusted: "allow" } } },
    });
    expect(warnings).toEqual([
      'taintPolicy.external: "allow" is more permissive than shared="confirm"; corrected to "confirm" (a policy must not loosen as trust falls)',
      "toolOverrides.exec: the six-level keys system/owner/local are deprecated; mapped to trusted=allow. Use the keys trusted, shared, external, untrusted.",
      "agents.w.taintPolicy: the six-level keys system/owner/local are deprecated; mapped to trusted=allow. Use the keys trusted, shared, external, untrusted.",
      'agents.w.taintPolicy.untrusted: "allow" is more permissive than external="confirm"; corrected to "confirm" (a policy must not loosen as trust falls)',
    ]);
  });

  it("an explicit trusted key wins over the legacy keys beside it", () => {
    const { config, warnings } = resolveConfig({ taintPolicy: { trusted: "confirm", owner: "allow" } });
    expect(config.taintPolicy.trusted).toBe("confirm");
    expect(warnings).toEqual([
      "taintPolicy: the six-level keys system/owner/local are deprecated; mapped to trusted=allow. Use the keys trusted, shared, external, untrusted.",
    ]);
  });
});

describe("an agent inherits the global tables it does not override", () => {
  it("output taints and action classes merge the agent's entries over the global ones", () => {
    const { config } = resolveConfig({
      toolOutputTaints: { crm_read: "shared", wiki_read: "trusted" },
      toolActionClasses: { crm_write: "write", pay: "trade" },
      agents: { w: { toolOutputTaints: { wiki_read: "external" }, toolActionClasses: { pay: "send" } } },
    });
    expect(config.agents.w?.toolOutputTaints).toEqual({ crm_read: "shared", wiki_read: "external" });
    expect(config.agents.w?.toolActionClasses).toEqual({ crm_write: "write", pay: "send" });
  });
});
