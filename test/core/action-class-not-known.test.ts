import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/core/config.js";
import { ToolPolicy } from "../../src/core/tool-policy.js";
import { TRUST_LEVELS } from "../../src/core/trust-levels.js";

const notOwner = { messageToOwner: false };

describe("rule: an owner's toolActionClasses entry does not make a tool known", () => {
  // docs/engine.md: only the built-in lists, toolOverrides and toolOutputTaints classify a tool.
  // An action class says what a call does, not that the tool is vetted; a renamed tool carrying
  // one must still get the untrusted policy.
  const policy = new ToolPolicy(resolveConfig({ taintPolicy: { untrusted: "restrict" }, toolActionClasses: { my_tool: "read" } }).config);

  it("isKnown stays false and the action class is still the one given", () => {
    expect(policy.isKnown("my_tool")).toBe(false);
    expect(policy.actionClass("my_tool")).toBe("read");
  });

  it("the tool gets the unknown-tool rule at every taint, even trusted", () => {
    for (const taint of TRUST_LEVELS) {
      expect(policy.modeFor("my_tool", taint, notOwner)).toMatchObject({ mode: "restrict", rule: "unknown-tool" });
    }
  });

  it("the same tool named in toolOutputTaints is known", () => {
    const known = new ToolPolicy(resolveConfig({ toolActionClasses: { my_tool: "read" }, toolOutputTaints: { my_tool: "trusted" } }).config);
    expect(known.isKnown("my_tool")).toBe(true);
    expect(known.modeFor("my_tool", "trusted", notOwner)).toMatchObject({ mode: "allow", rule: "taint-policy" });
  });
});
