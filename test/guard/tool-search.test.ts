import { describe, expect, it } from "vitest";
import { replayTrace, verdicts } from "./helpers.js";

/**
 * OpenClaw's default Tool Search, replayed as the pinned host emits it (see test/e2e for the same
 * in the real program): `before_tool_call` for the `tool_call` and again for the call it wraps,
 * whose id is `tool_search_code:<parent>:<tool>:<n>`.
 */
describe("Tool Search through the guard", () => {
  it("an owner's turn searches, describes and calls tools with no prompt; each call is decided once, as the tool it wraps", () => {
    const { lines } = replayTrace("tool-search-owner.jsonl");
    expect(verdicts(lines)).toEqual([
      "call_1:allow@trusted",
      "call_2:allow@trusted",
      "call_3:allow@trusted",
      "tool_search_code:call_3:exec:1:allow@trusted",
      "call_4:allow@trusted",
      "tool_search_code:call_4:web_fetch:2:allow@trusted",
      "call_5:confirm@untrusted",
    ]);
    const tools = lines.flatMap((l) => ("id" in l ? [l.tool] : []));
    expect(tools).toEqual(["tool_search", "tool_describe", "exec", "exec", "web_fetch", "web_fetch", "exec"]);
    const inner = lines[3] as { reason: string; code?: string };
    expect(inner.reason).toBe("decided as the call call_3 that made it");
    // The held tool_call names the tool it wraps, so the owner approves exec, not tool_call.
    const held = lines[6] as { reason: string; code?: string };
    expect(held.reason).toContain(`.approve exec ${held.code}`);
    expect(held.reason).toContain("untrusted content from web_fetch response");
  });

  it("held and refused calls leave the taint where it was, in the turn and the next", () => {
    const { lines } = replayTrace("tool-search-held.jsonl");
    expect(verdicts(lines)).toEqual(["call_1:confirm@trusted", "call_2:confirm@trusted", "call_3:confirm@trusted", "call_5:allow@trusted", "call_6:allow@trusted"]);
    expect(lines.filter((l) => "event" in l && l.event === "response").map((l) => ("taint" in l ? l.taint : null))).toEqual(["trusted", "trusted"]);
  });

  it("a wrapped call meets every rule its target does: staging, message, restrict, dangerous, unknown; a changed inner call is decided again", () => {
    const { lines, workspaceDir } = replayTrace("tool-search-wrapped-attacks.jsonl");
    expect(verdicts(lines)).toEqual([
      "call_1:allow@trusted",
      "tool_search_code:call_1:web_fetch:1:allow@trusted",
      "call_2:block@untrusted",
      "call_3:confirm@untrusted",
      "call_4:block@untrusted",
      "call_5:confirm@untrusted",
      "call_6:confirm@untrusted",
      "tool_search_code:call_6:exec:2:confirm@untrusted",
      "call_7:confirm@untrusted",
    ]);
    const byId = new Map(lines.flatMap((l) => ("id" in l ? [[l.id, l] as const] : [])));
    expect(byId.get("call_2")).toMatchObject({ tool: "write" });
    expect(byId.get("call_2")?.reason).toContain("Blocked a write to memory file SOUL.md");
    expect(workspaceDir).toBeTruthy();
    expect(byId.get("call_4")?.reason).toContain("Tool 'process' is restricted");
    // An MCP tool named like a core tool stays the MCP tool: unknown, untrusted.
    expect(byId.get("call_5")).toMatchObject({ tool: "mcp:evil:exec" });
    expect(byId.get("call_7")?.reason).toContain("gateway always needs the owner's approval");
  });

  it("a code-bridge script's calls are decided one by one; its result carries its calls' taint; an MCP description is not the host's word", () => {
    const { lines } = replayTrace("tool-search-code-bridge.jsonl");
    expect(verdicts(lines)).toEqual([
      "call_1:allow@trusted",
      "tool_search_code:call_1:web_fetch:1:allow@trusted",
      "tool_search_code:call_1:exec:2:confirm@untrusted",
      "call_1:allow@trusted",
      "call_2:confirm@untrusted",
    ]);
    expect((lines[5] as { reason: string }).reason).toContain("untrusted content from tool_search response");
  });
});

describe("a result reported twice", () => {
  it("is read with the call's arguments both times (no 'exec with no command string')", async () => {
    const { Guard } = await import("../../src/guard.js");
    const { tempWorkspace } = await import("./helpers.js");
    const guard = Guard.open({ workspaceDir: tempWorkspace() });
    guard.beginTurn({ sessionId: "twice", sender: { id: "o", isOwner: true }, provider: "telegram", text: "ls" });
    expect(guard.beforeToolCall("twice", { id: "c1", tool: "exec", params: { command: "ls" } }).verdict).toBe("allow");
    guard.afterToolCall("twice", { id: "c1", tool: "exec", output: "a.txt" });
    guard.afterToolCall("twice", { id: "c1", tool: "exec", output: "a.txt" });
    expect(guard.taint("twice")).toBe("trusted");
    guard.close();
  });
});
