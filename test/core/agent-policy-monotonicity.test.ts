import { describe, expect, it } from "vitest";
import { policyForAgent, resolveConfig } from "../../src/core/config.js";

describe("rule: an agent's taintPolicy must not loosen as trust falls (agents.*)", () => {
  it("a level the agent itself loosens is raised to the one above, with a warning naming the agent's key", () => {
    const { config, warnings } = resolveConfig({ agents: { work: { taintPolicy: { external: "restrict", untrusted: "allow" } } } });
    expect(config.agents.work!.taintPolicy).toEqual({ trusted: "allow", shared: "confirm", external: "restrict", untrusted: "restrict" });
    expect(warnings).toEqual([
      'agents.work.taintPolicy.untrusted: "allow" is more permissive than external="restrict"; corrected to "restrict" (a policy must not loosen as trust falls)',
    ]);
  });

  it("a level the agent loosens below what it inherits from the global policy is raised too", () => {
    const { config, warnings } = resolveConfig({ taintPolicy: { shared: "restrict" }, agents: { work: { taintPolicy: { external: "allow" } } } });
    expect(config.taintPolicy).toEqual({ trusted: "allow", shared: "restrict", external: "restrict", untrusted: "restrict" });
    expect(policyForAgent(config, "work").taintPolicy).toEqual({ trusted: "allow", shared: "restrict", external: "restrict", untrusted: "restrict" });
    // The global policy's own correction, then the agent's.
    expect(warnings).toHaveLength(3);
    expect(warnings[2]).toMatch(/^agents\.work\.taintPolicy\.external: "allow" is more permissive than shared="restrict"/);
  });

  it("the global correction does not leak into an agent that is already monotone", () => {
    const { config, warnings } = resolveConfig({ agents: { strict: { taintPolicy: { trusted: "confirm", shared: "confirm", external: "restrict", untrusted: "restrict" } } } });
    expect(config.agents.strict!.taintPolicy).toEqual({ trusted: "confirm", shared: "confirm", external: "restrict", untrusted: "restrict" });
    expect(warnings).toEqual([]);
  });
});
