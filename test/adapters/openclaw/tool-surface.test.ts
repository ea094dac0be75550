import { describe, expect, it } from "vitest";
import { narrowedTools, ToolSurface } from "../../../src/adapters/openclaw/tool-surface.js";

describe("the tools an OpenClaw agent's model is offered", () => {
  it("starts from the catalogue and the plugin's own tools, and learns each agent's from its model calls, in either shape", () => {
    const surface = new ToolSurface(["verify"]);
    const base = surface.candidates("a");
    expect(base).toEqual(expect.arrayContaining(["exec", "read", "web_fetch", "message", "verify"]));
    expect(new Set(base).size).toBe(base.length);
    surface.learn("a", [{ name: "mcp_calendar" }, { type: "function", function: { name: "mcp_mail" } }, { function: null }, { function: { name: 7 } }, null, "exec", { name: "exec" }]);
    expect(surface.candidates("a")).toEqual([...base, "mcp_calendar", "mcp_mail"]);
    surface.learn("a", [{ name: "mcp_notes" }]);
    expect(surface.candidates("a")).toEqual([...base, "mcp_calendar", "mcp_mail", "mcp_notes"]);
    expect(surface.candidates("b")).toEqual(base);
    surface.learn(null, { name: "not-a-list" });
    surface.learn(null, [{ name: "default_only" }]);
    expect(surface.candidates(null)).toEqual([...base, "default_only"]);
    expect(surface.candidates("a")).not.toContain("default_only");
  });

  it("an allow-list only when the guard removes something", () => {
    expect(narrowedTools(["exec", "read"], ["exec", "read"])).toBeUndefined();
    expect(narrowedTools(["exec", "read"], ["read"])).toEqual(["read"]);
    expect(narrowedTools(["exec"], [])).toEqual([]);
  });
});
