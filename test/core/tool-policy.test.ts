import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { resolveConfig } from "../../src/core/config.js";
import { POLICY_MODES, modeStrictness } from "../../src/core/policy-modes.js";
import { DEFAULT_SAFE_TOOLS, DEFAULT_TAINT_DEFAULT_TOOLS, DEFAULT_TOOL_OUTPUT_TAINTS } from "../../src/core/tool-catalogue.js";
import { ToolPolicy } from "../../src/core/tool-policy.js";
import { TRUST_LEVELS, type TrustLevel } from "../../src/core/trust-levels.js";

const policy = (input: unknown = {}) => new ToolPolicy(resolveConfig(input).config);
const notOwner = { messageToOwner: false };

describe("Two Independent Axes: Tool Response Trust vs. Tool Call Permission", () => {
  it.each([
    ["web_fetch", "untrusted", "allow"],
    ["web_search", "untrusted", "allow"],
    ["read", "trusted", "allow"],
    ["browser", "untrusted", "confirm"],
    ["exec", "trusted", "confirm"],
    ["message", "external", "confirm"],
    ["vestige_search", "shared", "allow"],
    ["gateway", "trusted", "confirm"],
  ] as const)("%s: response %s, call at untrusted %s", (tool, response, callMode) => {
    const p = policy();
    expect(p.outputTaint(tool)).toBe(response);
    expect(p.modeFor(tool, "untrusted", notOwner).mode).toBe(callMode);
  });
});

describe("Default Output Taints", () => {
  it("keeps the seed's table (the host's newer tools are added around it)", () => {
    const seed: Record<TrustLevel, string[]> = {
      trusted: ["Read", "Edit", "Write", "exec", "process", "tts", "cron", "sessions_spawn", "gateway", "session_status"],
      shared: ["vestige_search", "vestige_smart_ingest", "vestige_ingest", "vestige_promote", "vestige_demote", "memory_search", "memory_get"],
      external: ["message", "gog", "image"],
      untrusted: ["web_fetch", "web_search", "browser"],
    };
    for (const level of TRUST_LEVELS) for (const t of seed[level]) expect([t, DEFAULT_TOOL_OUTPUT_TAINTS[t]]).toEqual([t, level]);
  });

  it("toolOutputTaints overrides a default and keeps the rest", () => {
    const p = policy({ toolOutputTaints: { web_fetch: "external" } });
    expect(p.outputTaint("web_fetch")).toBe("external");
    expect(p.outputTaint("web_search")).toBe("untrusted");
  });
});

describe("Default Safe Tools (Call Permission)", () => {
  it("are allowed at every taint level, even under a restrictive policy", () => {
    const p = policy({ taintPolicy: { shared: "restrict", external: "restrict", untrusted: "restrict" } });
    for (const tool of DEFAULT_SAFE_TOOLS) for (const level of TRUST_LEVELS) expect(p.modeFor(tool, level, notOwner).mode).toBe("allow");
  });
});

describe("Default Dangerous Tools", () => {
  it("gateway needs approval even at trusted", () => {
    for (const level of TRUST_LEVELS) expect(policy().modeFor("gateway", level, notOwner)).toMatchObject({ mode: "confirm", rule: "dangerous-tool" });
  });
});

describe("Tool Overrides", () => {
  it("replace the taint default rather than taking the strictest", () => {
    const p = policy({ taintPolicy: { untrusted: "restrict" }, toolOverrides: { read: { "*": "allow" }, exec: { external: "restrict", untrusted: "restrict" } } });
    expect(p.modeFor("read", "untrusted", notOwner).mode).toBe("allow");
    expect(p.modeFor("exec", "external", notOwner)).toMatchObject({ mode: "restrict", rule: "tool-override" });
    expect(p.modeFor("exec", "shared", notOwner)).toMatchObject({ mode: "confirm", rule: "taint-policy" });
  });

  it("a specific level wins over the * key", () => {
    const p = policy({ toolOverrides: { exec: { "*": "restrict", trusted: "allow" } } });
    expect(p.modeFor("exec", "trusted", notOwner).mode).toBe("allow");
    expect(p.modeFor("exec", "shared", notOwner).mode).toBe("restrict");
  });

  it("an owner's override replaces the built-in one whole (gateway can be made allow at trusted)", () => {
    const p = policy({ toolOverrides: { gateway: { trusted: "allow" } } });
    expect(p.modeFor("gateway", "trusted", notOwner).mode).toBe("allow");
    expect(p.modeFor("gateway", "untrusted", notOwner).mode).toBe("confirm");
  });
});

describe("The message Tool: Owner DM Exception", () => {
  it("a message to the owner's DM is allowed at any taint; elsewhere it follows the taint policy", () => {
    for (const level of TRUST_LEVELS) expect(policy().modeFor("message", level, { messageToOwner: true })).toMatchObject({ mode: "allow", rule: "owner-dm" });
    expect(policy().modeFor("message", "external", notOwner).mode).toBe("confirm");
  });
});

describe("Browser: A Special Case", () => {
  it("is not safe by default, and the seed's override gives allow at trusted and confirm below", () => {
    expect(policy().modeFor("browser", "untrusted", notOwner).mode).toBe("confirm");
    const p = policy({ toolOverrides: { browser: { trusted: "allow", shared: "confirm", external: "confirm", untrusted: "confirm" } } });
    expect(p.modeFor("browser", "trusted", notOwner).mode).toBe("allow");
    expect(p.modeFor("browser", "untrusted", notOwner).mode).toBe("confirm");
  });
});

describe("Unknown Tools (Secure by Default)", () => {
  it("get untrusted output taint and the untrusted call policy at any taint (rename attack)", () => {
    const p = policy({ taintPolicy: { untrusted: "restrict" } });
    expect(p.isKnown("exec2")).toBe(false);
    expect(p.outputTaint("exec2")).toBe("untrusted");
    expect(p.modeFor("exec2", "trusted", notOwner)).toMatchObject({ mode: "restrict", rule: "unknown-tool" });
    expect(p.modeFor("EXEC", "trusted", notOwner).rule).toBe("unknown-tool");
    expect(p.actionClass("exec2")).toBe("trade");
  });

  it("become known through toolOutputTaints or toolOverrides", () => {
    const p = policy({ toolOutputTaints: { my_tool: "trusted" }, toolOverrides: { other: { "*": "allow" } } });
    expect(p.modeFor("my_tool", "trusted", notOwner)).toMatchObject({ mode: "allow", rule: "taint-policy" });
    expect(p.modeFor("other", "untrusted", notOwner).mode).toBe("allow");
  });

  it("property: an unknown tool is never treated more permissively than the untrusted policy", () => {
    const mode = fc.constantFrom(...POLICY_MODES);
    const level = fc.constantFrom(...TRUST_LEVELS);
    const known = new Set([...Object.keys(DEFAULT_TOOL_OUTPUT_TAINTS), ...DEFAULT_SAFE_TOOLS, ...DEFAULT_TAINT_DEFAULT_TOOLS, "gateway"]);
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20 }).filter((t) => !known.has(t) && t !== "__proto__"),
        fc.record({ trusted: mode, shared: mode, external: mode, untrusted: mode }),
        level,
        (tool, taintPolicy, taint) => {
          const p = policy({ taintPolicy });
          const got = p.modeFor(tool, taint, notOwner).mode;
          expect(modeStrictness(got)).toBeGreaterThanOrEqual(modeStrictness(p.config.taintPolicy.untrusted));
        },
      ),
    );
  });
});

describe("property: a stricter config never allows what a looser one blocks", () => {
  it("holds for every tool, taint and pair of policies ordered pointwise", () => {
    const mode = fc.constantFrom(...POLICY_MODES);
    const level = fc.constantFrom(...TRUST_LEVELS);
    const tools = fc.constantFrom("exec", "browser", "message", "gateway", "read", "web_fetch", "unknown_tool", "cron", "write");
    const pol = fc.record({ trusted: mode, shared: mode, external: mode, untrusted: mode });
    fc.assert(
      fc.property(pol, pol, tools, level, fc.boolean(), (a, b, tool, taint, toOwner) => {
        const loose = policy({ taintPolicy: a });
        // b is made pointwise at least as strict as a's resolved policy
        const strictInput = Object.fromEntries(
          TRUST_LEVELS.map((l) => [l, modeStrictness(b[l]) >= modeStrictness(loose.config.taintPolicy[l]) ? b[l] : loose.config.taintPolicy[l]]),
        );
        const strict = policy({ taintPolicy: strictInput });
        const ctx = { messageToOwner: toOwner };
        expect(modeStrictness(strict.modeFor(tool, taint, ctx).mode)).toBeGreaterThanOrEqual(modeStrictness(loose.modeFor(tool, taint, ctx).mode));
      }),
    );
  });
});

describe("every decision names its rule and says why", () => {
  it.each([
    ["web_fetch", "untrusted", {}, false, { mode: "allow", rule: "safe-tool", reason: "web_fetch has no dangerous side effect and is allowed at any taint" }],
    ["gateway", "trusted", {}, false, { mode: "confirm", rule: "dangerous-tool", reason: "gateway always needs the owner's approval" }],
    ["exec", "shared", { toolOverrides: { exec: { "*": "restrict" } } }, false, { mode: "restrict", rule: "tool-override", reason: "toolOverrides.exec sets restrict at shared" }],
    ["message", "untrusted", {}, true, { mode: "allow", rule: "owner-dm", reason: "a message to the owner's own DM is always allowed" }],
    [
      "exec2",
      "trusted",
      { taintPolicy: { untrusted: "restrict" } },
      false,
      { mode: "restrict", rule: "unknown-tool", reason: "exec2 is not a known tool; unknown tools get the untrusted policy (restrict)" },
    ],
    ["message", "external", {}, false, { mode: "confirm", rule: "taint-policy", reason: "taintPolicy.external is confirm" }],
  ] as const)("%s at %s", (tool, taint, config, messageToOwner, decision) => {
    expect(policy(config).modeFor(tool, taint, { messageToOwner })).toEqual(decision);
  });

  it("only the message tool is exempt for a message to the owner's DM", () => {
    const p = policy({ taintPolicy: { untrusted: "restrict" } });
    expect(DEFAULT_TAINT_DEFAULT_TOOLS).toContain("exec");
    for (const tool of DEFAULT_TAINT_DEFAULT_TOOLS.filter((t) => t !== "message")) {
      expect(p.modeFor(tool, "untrusted", { messageToOwner: true }), tool).toEqual({
        mode: "restrict",
        rule: "taint-policy",
        reason: "taintPolicy.untrusted is restrict",
      });
    }
  });
});
