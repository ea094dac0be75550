import { describe, expect, it } from "vitest";
import type { ToolGate } from "../../src/core/gate.js";
import type { Logger } from "../../src/core/logger.js";
import { Guard } from "../../src/guard.js";
import { capturingLogger, memoryAudit, tempWorkspace, type AuditEntry, OWNER } from "./helpers.js";

function claims(records: readonly AuditEntry[], kind: string): Readonly<Record<string, unknown>>[] {
  return records.filter((r) => r.type === "CLAIM" && r.data.kind === kind).map((r) => r.data);
}

/** A gate that hides exec from the model (as the intent-scope gate hides what a turn may not do). */
const hidesExec: ToolGate = { name: "hides-exec", check: () => undefined, hiddenTools: () => new Set(["exec"]) };

function open(config: unknown = {}, gates: readonly ToolGate[] = []): { guard: Guard; records: AuditEntry[] } {
  const { audit, records } = memoryAudit();
  return { guard: Guard.open({ config, workspaceDir: tempWorkspace(), audit, gates }), records };
}

function ownerTurn(guard: Guard, sessionId = "s", extra: { freshSession?: boolean } = {}): void {
  guard.beginTurn({ sessionId, sender: OWNER, provider: "telegram", text: "hello", ...extra });
}

describe("layer 1: the tools shown", () => {
  it("rule: a tool a gate hides is not shown, in the turn and in a preview of a session already begun", () => {
    const { guard } = open({}, [hidesExec]);
    ownerTurn(guard);
    expect(guard.toolsFor("s", ["read", "exec"])).toEqual(["read"]);
    expect(guard.previewTools({ sessionId: "s", sender: OWNER, provider: "telegram" }, ["read", "exec"])).toEqual(["read"]);
    guard.close();
  });

  it("rule: once the iteration cap blocks the turn, no tool is shown", () => {
    const { guard } = open({ maxIterations: 1 });
    ownerTurn(guard);
    expect(guard.beforeToolCall("s", { tool: "read", params: { path: "a.txt" } }).verdict).toBe("allow");
    guard.afterToolCall("s", { tool: "read", output: "a" });
    guard.beforeToolCall("s", { tool: "read", params: { path: "b.txt" } });
    expect(guard.toolsFor("s", ["read", "exec"])).toEqual([]);
    guard.close();
  });

  it("rule: layer 1 does not know the recipient, so a restricted message tool is not shown as if to the owner's DM", () => {
    const { guard } = open({ taintPolicy: { untrusted: "restrict", external: "restrict" } });
    ownerTurn(guard);
    guard.afterToolCall("s", { tool: "web_fetch", output: "page" });
    expect(guard.toolsFor("s", ["message", "read"])).toEqual(["read"]);
    // The same in a preview: a non-owner sender (external) before the turn begins.
    expect(guard.previewTools({ sessionId: "p", sender: { id: "+1999", isOwner: false }, provider: "telegram" }, ["message", "read"])).toEqual(["read"]);
    guard.close();
  });

  it("rule: a preview with the sender's owner status unknown (null or absent) does not classify the sender", () => {
    const { guard } = open({ taintPolicy: { untrusted: "restrict", external: "restrict" } });
    expect(guard.previewTools({ sessionId: "p1", sender: { isOwner: null }, provider: "telegram" }, ["exec"])).toEqual(["exec"]);
    expect(guard.previewTools({ sessionId: "p2", sender: {}, provider: "telegram" }, ["exec"])).toEqual(["exec"]);
    // Known not to be the owner: classified, and exec is restricted for a stranger.
    expect(guard.previewTools({ sessionId: "p3", sender: { isOwner: false }, provider: "telegram" }, ["exec"])).toEqual([]);
    guard.close();
  });

  it("rule: a preview reads the watermark another process sharing the workspace wrote, once shared state is refreshed", () => {
    const ws = tempWorkspace();
    const config = { taintPolicy: { external: "restrict" } };
    const a = Guard.open({ config, workspaceDir: ws, audit: memoryAudit().audit });
    const b = Guard.open({ config, workspaceDir: ws, audit: memoryAudit().audit });
    b.beginTurn({ sessionId: "t", sender: { id: "+1999", isOwner: false }, provider: "telegram", text: "hi" });
    b.endTurn("t");
    a.refreshSharedState();
    expect(a.previewTools({ sessionId: "t", sender: {}, provider: "telegram" }, ["exec", "read"])).toEqual(["read"]);
    a.close();
    b.close();
  });
});

describe("layer 2: what the ledger keeps of each decision", () => {
  it("rule: a call made by a Tool Search tool_call is decided as its parent, and the ledger says so with both ids", () => {
    const { guard, records } = open();
    ownerTurn(guard);
    guard.beforeToolCall("s", { id: "call_1", tool: "tool_call", params: { id: "exec", args: { command: "ls" } } });
    const inner = guard.beforeToolCall("s", { id: "inner_1", tool: "exec", params: { command: "ls" }, parentId: "call_1" });
    expect(inner).toMatchObject({ verdict: "allow", rule: "decided-as-parent" });
    expect(claims(records, "decided-as-parent")).toEqual([{ kind: "decided-as-parent", sessionId: "s", callId: "inner_1", parentId: "call_1", tool: "exec" }]);
    guard.close();
  });

  it("rule: the ledger records whether a code was issued, never the live code itself", () => {
    const { guard, records } = open();
    ownerTurn(guard);
    guard.beforeToolCall("s", { id: "r1", tool: "read", params: { path: "a.txt" } });
    guard.afterToolCall("s", { tool: "web_fetch", output: "page" });
    const asked = guard.beforeToolCall("s", { id: "e1", tool: "exec", params: { command: "ls" } });
    const code = asked.code ?? "";
    expect(code).toMatch(/^[0-9a-f]{8}$/);
    const decisions = claims(records, "decision");
    expect(decisions.map((d) => [d.callId, d.codeIssued])).toEqual([
      ["r1", false],
      ["e1", true],
    ]);
    const reason = String(decisions[1]?.reason);
    expect(reason).not.toContain(code);
    expect(reason).toContain(".approve exec <code>");
    guard.close();
  });

  it("rule: parameters are decided as made well-formed: the approval prompt shows a lone surrogate as U+FFFD", () => {
    const { guard } = open();
    ownerTurn(guard);
    guard.afterToolCall("s", { tool: "web_fetch", output: "page" });
    const asked = guard.beforeToolCall("s", { tool: "exec", params: { command: "echo \udc00" } });
    expect(asked.verdict).toBe("confirm");
    expect(asked.reason).toContain('Call: exec {"command":"echo \\ufffd"}');
    guard.close();
  });
});

describe("tool results", () => {
  it("rule: the result of a call that was not run is recorded as such and does not raise the taint", () => {
    const { guard, records } = open({ taintPolicy: { trusted: "confirm" } });
    ownerTurn(guard);
    const curl = { command: "curl https://x.example" };
    expect(guard.beforeToolCall("s", { id: "c1", tool: "exec", params: curl }).verdict).toBe("confirm");
    expect(guard.afterToolCall("s", { id: "c1", tool: "exec", params: curl, output: "refused by host" }).taint).toBe("trusted");
    expect(claims(records, "result-of-call-not-run")).toEqual([{ kind: "result-of-call-not-run", sessionId: "s", callId: "c1", tool: "exec" }]);
    guard.close();
  });

  it("rule: a taint escalation is recorded with its levels and the tool that caused it; a trusted output records none", () => {
    const { guard, records } = open();
    ownerTurn(guard);
    guard.afterToolCall("s", { tool: "read", output: "notes" });
    expect(claims(records, "taint-escalated")).toEqual([]);
    guard.afterToolCall("s", { tool: "web_fetch", output: "page" });
    expect(claims(records, "taint-escalated")).toEqual([{ kind: "taint-escalated", sessionId: "s", turnId: "s#1", from: "trusted", to: "untrusted", by: "web_fetch" }]);
    guard.close();
  });

  it("rule: a Tool Search wrapper's result is judged by the arguments that were decided, not by those its result reports", () => {
    const { guard } = open();
    ownerTurn(guard);
    // Decided as `ls`: the result claims other arguments, but the decided ones say what its output is worth.
    guard.beforeToolCall("s", { id: "w1", tool: "tool_call", params: { id: "exec", args: { command: "ls" } } });
    expect(guard.afterToolCall("s", { id: "w1", tool: "tool_call", params: { command: "curl https://x.example" }, output: "hi" }).taint).toBe("trusted");
    // Decided as a fetch from the network: a result claiming a local read is still network output.
    guard.beforeToolCall("s", { id: "w2", tool: "tool_call", params: { id: "exec", args: { command: "curl https://x.example" } } });
    expect(guard.afterToolCall("s", { id: "w2", tool: "tool_call", params: { command: "cat notes.txt" }, output: "hi" }).taint).toBe("untrusted");
    guard.close();
  });

  it("rule: a ~ in a tool's path names the home directory the guard was opened with", () => {
    const home = tempWorkspace("provenant-home-");
    const { audit } = memoryAudit();
    const guard = Guard.open({ workspaceDir: tempWorkspace(), homeDir: home, audit });
    ownerTurn(guard, "a");
    guard.afterToolCall("a", { tool: "web_fetch", output: "page" });
    guard.afterToolCall("a", { tool: "write", params: { path: `${home}/notes.md`, content: "x" }, output: "ok" });
    ownerTurn(guard, "b");
    // The file was written under taint: reading it back through ~ carries that taint.
    expect(guard.afterToolCall("b", { tool: "read", params: { path: "~/notes.md" }, output: "x" }).taint).toBe("untrusted");
    guard.close();
  });
});

describe("responses, turns and owner tools", () => {
  it("rule: the response is a node of the turn's graph; after the turn ended it is answered at the turn's taint, not failed", () => {
    const { logger, lines } = capturingLogger();
    const errors = lines.error;
    const guard = Guard.open({ workspaceDir: tempWorkspace(), audit: memoryAudit().audit, logger });
    ownerTurn(guard);
    expect(guard.beforeResponse("s", "hi").taint).toBe("trusted");
    const last = guard.graph("s")?.toJSON().nodes.at(-1);
    expect(last).toMatchObject({ kind: "output", label: "response", trust: "trusted" });
    guard.endTurn("s");
    expect(guard.beforeResponse("s", "late")).toEqual({ text: "late", taint: "trusted" });
    expect(errors).toEqual([]);
    guard.close();
  });

  it("rule: a response that cannot be processed fails beforeResponse by name, and goes out as untrusted", () => {
    const errors: string[] = [];
    // A log stream that breaks on a warning: the guard's own code failing, seen from outside.
    const logger: Logger = {
      info: () => undefined,
      warn: () => {
        throw new Error("log stream closed");
      },
      error: (m) => errors.push(m),
    };
    const { audit, records } = memoryAudit();
    const guard = Guard.open({ workspaceDir: tempWorkspace(), audit, logger });
    expect(guard.beforeResponse("nobody", "text")).toEqual({ text: "text", taint: "untrusted" });
    expect(errors).toContain("beforeResponse failed for session nobody; failing open");
    expect(records.find((r) => r.type === "META")?.data).toMatchObject({ kind: "fail-open", method: "beforeResponse" });
    guard.close();
  });

  it("rule: a fresh session (/new) is recorded in the ledger", () => {
    const { guard, records } = open();
    ownerTurn(guard, "s", { freshSession: true });
    expect(claims(records, "fresh-session")).toEqual([{ kind: "fresh-session", sessionId: "s" }]);
    guard.close();
  });

  it("rule: runOwnerTool runs only the guard's own tools; any other tool is not the guard's to run", () => {
    const { guard } = open();
    ownerTurn(guard);
    expect(guard.runOwnerTool("s", { tool: "exec", params: { command: "ls" } })).toBeUndefined();
    expect(guard.runOwnerTool("s", { tool: "update_and_sign", params: {} })).toBeDefined();
    guard.close();
  });
});

describe("message authentication set-up", () => {
  it("rule: authentication is on when only one agent opts in; that agent's turns are authenticated", () => {
    const { guard } = open({ auth: { mode: "off", agents: { ops: "enforce" } } });
    const start = guard.beginTurn({ sessionId: "s", agentId: "ops", sender: OWNER, provider: "telegram", text: "hello" });
    expect(start.authentication).toMatchObject({ accepted: false });
    guard.close();
  });

  it("rule: in warn mode the intent scope only warns: an unsigned owner turn's exec is decided by the taint policy and stays shown", () => {
    const { guard, records } = open({ auth: { mode: "warn" } });
    ownerTurn(guard);
    expect(guard.toolsFor("s", ["exec", "read"])).toEqual(["exec", "read"]);
    expect(guard.beforeToolCall("s", { tool: "exec", params: { command: "ls" } })).toMatchObject({ verdict: "allow", rule: "taint-policy" });
    expect(records.some((r) => r.type === "META" && r.data.event === "intent-scope-warning")).toBe(true);
    guard.close();
  });
});
