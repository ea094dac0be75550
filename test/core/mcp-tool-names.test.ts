import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/core/config.js";
import { isMcpServerName, mcpServerWildcard, mcpToolName } from "../../src/core/mcp-tool-names.js";
import { ToolPolicy } from "../../src/core/tool-policy.js";

describe("MCP tool names", () => {
  it("names a server's tools and their wildcard", () => {
    expect(mcpToolName("fs", "write_file")).toBe("mcp__fs__write_file");
    expect(mcpServerWildcard("mcp__fs__write_file")).toBe("mcp__fs__*");
    expect(mcpServerWildcard("mcp__fs__*")).toBeNull();
    expect(mcpServerWildcard("mcp____x")).toBeNull();
    expect(mcpServerWildcard("exec")).toBeNull();
    for (const good of ["fs", "my-server", "a_b", "X1"]) expect(isMcpServerName(good)).toBe(true);
    for (const bad of ["", "a__b", "_a", "a_", "../x", "a/b", "x".repeat(64), "__proto__"]) expect(isMcpServerName(bad)).toBe(false);
  });

  it("configures every tool of a server through mcp__<server>__*, a specific key winning", () => {
    const { config } = resolveConfig({
      toolOutputTaints: { "mcp__fs__*": "external", mcp__fs__read: "trusted" },
      toolActionClasses: { "mcp__fs__*": "write" },
      toolOverrides: { "mcp__fs__*": { untrusted: "restrict" }, mcp__fs__read: { "*": "allow" } },
    });
    const p = new ToolPolicy(config);
    expect(p.isKnown("mcp__fs__write")).toBe(true);
    expect(p.isKnown("mcp__other__write")).toBe(false);
    expect(p.outputTaint("mcp__fs__write")).toBe("external");
    expect(p.outputTaint("mcp__fs__read")).toBe("trusted");
    expect(p.actionClass("mcp__fs__write")).toBe("write");
    expect(p.modeFor("mcp__fs__write", "untrusted", { messageToOwner: false }).mode).toBe("restrict");
    expect(p.modeFor("mcp__fs__write", "trusted", { messageToOwner: false })).toMatchObject({ mode: "allow", rule: "taint-policy" });
    expect(p.modeFor("mcp__fs__read", "untrusted", { messageToOwner: false }).mode).toBe("allow");
    // An unconfigured server's tools are unknown: asked at any taint.
    expect(p.modeFor("mcp__other__write", "trusted", { messageToOwner: false })).toMatchObject({ mode: "confirm", rule: "unknown-tool" });
  });
});
