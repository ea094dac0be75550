import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/config-error.js";
import { policyForAgent, resolveConfig } from "../../src/core/config.js";
import { resolveGuardConfig } from "../../src/guard-config.js";
import { inMappings } from "./nesting.js";

function refusal(input: unknown): ConfigError {
  try {
    resolveGuardConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("the configuration was accepted");
}

describe("configuration limits and reserved keys", () => {
  it("a configuration nested 5,000 levels deep is refused with the limit named, not a stack overflow", () => {
    const error = refusal({ toolOverrides: inMappings("allow", 5_000) });
    expect(error.message).toContain("the configuration is too large: nesting deeper than 32 levels");
  });

  it("a configuration over the size limit is refused with the limit named", () => {
    const error = refusal({ ownerIds: ["x".repeat(2 * 1024 * 1024)] });
    expect(error.message).toContain("more than 1048576 characters");
  });

  it("a __proto__ key inside toolOverrides is refused with the key named, not silently dropped", () => {
    const error = refusal(JSON.parse('{"toolOverrides":{"__proto__":{"*":"allow"}}}'));
    expect(error.problems).toEqual([{ key: "toolOverrides.__proto__", message: expect.stringContaining("reserved name") }]);
  });

  it("an agent id or tool name that is an Object.prototype member is refused with the key named", () => {
    expect(refusal({ agents: { constructor: {} } }).problems[0]?.key).toBe("agents.constructor");
    expect(refusal({ toolOutputTaints: { prototype: "trusted" } }).problems[0]?.key).toBe("toolOutputTaints.prototype");
    expect(refusal(JSON.parse('{"auth":{"agents":{"__proto__":"enforce"}}}')).problems[0]?.key).toBe("auth.agents.__proto__");
  });

  it("an agent with no entry of its own gets the global policy, whatever its id", () => {
    const { config } = resolveConfig({ agents: { a: { taintPolicy: { untrusted: "restrict" } } } });
    for (const id of ["constructor", "toString", "valueOf", "__proto__", "hasOwnProperty"]) expect(policyForAgent(config, id)).toBe(config);
    expect(policyForAgent(config, "a").taintPolicy.untrusted).toBe("restrict");
    expect(Object.getPrototypeOf(config.agents)).toBeNull();
    expect(Object.getPrototypeOf(config.toolOverrides)).toBeNull();
  });
});
