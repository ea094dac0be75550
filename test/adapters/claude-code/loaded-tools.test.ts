import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mcpToolsLoaded } from "../../../src/adapters/claude-code/loaded-tools.js";

describe("the MCP tools a ToolSearch loads", () => {
  it("are the mcp__ names of its matches, each once, from ToolSearch only", () => {
    expect(mcpToolsLoaded("ToolSearch", { matches: ["mcp__rug__notes", "WebFetch", "mcp__rug__notes", "mcp__fs__read"], query: "q", total_deferred_tools: 13 })).toEqual(["mcp__rug__notes", "mcp__fs__read"]);
    expect(mcpToolsLoaded("ToolSearch", { matches: [] })).toEqual([]);
    expect(mcpToolsLoaded("TaskList", { matches: ["mcp__rug__notes"] })).toEqual([]);
    for (const response of [null, undefined, "mcp__rug__notes", ["mcp__rug__notes"], { matches: "mcp__rug__notes" }, { matches: [{ name: "mcp__rug__notes" }] }, { Matches: ["mcp__rug__notes"] }]) {
      expect(mcpToolsLoaded("ToolSearch", response), JSON.stringify(response)).toEqual([]);
    }
  });

  it("reads at most the first hundred matches", () => {
    const names = Array.from({ length: 150 }, (_, i) => `mcp__s__t${i}`);
    expect(mcpToolsLoaded("ToolSearch", { matches: names })).toEqual(names.slice(0, 100));
  });

  it("property: any response gives distinct mcp__ names it holds, never throws", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ matches: fc.array(fc.oneof(fc.string(), fc.constant("mcp__a__b"), fc.jsonValue())) })), (response) => {
        const loaded = mcpToolsLoaded("ToolSearch", response);
        expect(new Set(loaded).size).toBe(loaded.length);
        for (const name of loaded) {
          expect(name.startsWith("mcp__")).toBe(true);
          expect((response as { matches: unknown[] }).matches).toContain(name);
        }
      }),
    );
  });
});
