import { readFileSync, writeFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ConfigError } from "../../src/core/config-error.js";
import { configInputSchema } from "../../src/core/config.js";
import { Guard } from "../../src/guard.js";
import { CONFIG_TOOLS, validConfig } from "./config-arbitrary.js";
import { capturingLogger, memoryAudit, tempWorkspace, OWNER } from "./helpers.js";

function taintedGuard(config: unknown = {}, now = () => 1_000_000) {
  const workspaceDir = tempWorkspace();
  const audit = memoryAudit();
  const guard = Guard.open({ config, workspaceDir, audit: audit.audit, now });
  guard.beginTurn({ sessionId: "s1", sender: OWNER, provider: "telegram", text: "check the page" });
  guard.beforeToolCall("s1", { tool: "web_fetch", params: {} });
  guard.afterToolCall("s1", { tool: "web_fetch", output: "injected" });
  return { guard, workspaceDir, audit };
}

describe("approval codes through the guard", () => {
  it("an expired code approves nothing", () => {
    let t = 1_000_000;
    const { guard } = taintedGuard({ approvalTtlSeconds: 120 }, () => t);
    const d = guard.beforeToolCall("s1", { tool: "exec", params: {} });
    guard.endTurn("s1");
    t += 121_000;
    const start = guard.beginTurn({ sessionId: "s1", sender: OWNER, provider: "telegram", text: `.approve exec ${d.code}` });
    expect(start.command).toMatchObject({ kind: "approve", accepted: false, message: expect.stringContaining("expired") });
    expect(guard.beforeToolCall("s1", { tool: "exec", params: {} }).verdict).toBe("confirm");
  });

  it("a code from another session approves nothing there", () => {
    const { guard } = taintedGuard();
    const d = guard.beforeToolCall("s1", { tool: "exec", params: {} });
    guard.beginTurn({ sessionId: "s2", sender: OWNER, provider: "telegram", text: "hello" });
    guard.beforeToolCall("s2", { tool: "gateway", params: {} });
    const start = guard.beginTurn({ sessionId: "s2", sender: OWNER, provider: "telegram", text: `.approve exec ${d.code}` });
    expect(start.command?.accepted).toBe(false);
  });

  it("a wrong code is refused and, repeated, voids the pending code", () => {
    const { guard } = taintedGuard({ maxWrongApprovalAttempts: 2 });
    const d = guard.beforeToolCall("s1", { tool: "exec", params: {} });
    const wrong = d.code === "00000000" ? "00000001" : "00000000";
    expect(guard.approve("s1", "exec", wrong, null, true).accepted).toBe(false);
    expect(guard.approve("s1", "exec", wrong, null, true).message).toContain("void");
    expect(guard.approve("s1", "exec", d.code!, null, true).accepted).toBe(false);
  });

  it("a timed approval outlives the turn", () => {
    const { guard } = taintedGuard();
    const d = guard.beforeToolCall("s1", { tool: "exec", params: {} });
    expect(guard.approve("s1", "exec", d.code!, 30, true)).toMatchObject({ accepted: true });
    guard.endTurn("s1");
    guard.beginTurn({ sessionId: "s1", sender: OWNER, provider: "telegram", text: "again" });
    expect(guard.beforeToolCall("s1", { tool: "exec", params: {} })).toMatchObject({ verdict: "allow", rule: "approved" });
  });
});

describe("Two-Layer Enforcement", () => {
  it("toolsFor removes restricted tools and keeps confirm-mode ones; beforeToolCall still blocks a tool not shown", () => {
    const { guard } = taintedGuard({ toolOverrides: { exec: { untrusted: "restrict" } } });
    expect(guard.toolsFor("s1", ["read", "exec", "message", "web_fetch"])).toEqual(["read", "message", "web_fetch"]);
    expect(guard.beforeToolCall("s1", { tool: "exec", params: {} })).toMatchObject({ verdict: "block", rule: "tool-override" });
  });
});

describe("decisions are data", () => {
  it("name the verdict, taint, rule and the provenance node that set the taint, and go to the audit sink", () => {
    const { guard, audit } = taintedGuard();
    const d = guard.beforeToolCall("s1", { id: "c9", tool: "exec", params: { command: "id" } });
    expect(d).toMatchObject({ tool: "exec", verdict: "confirm", taint: "untrusted", rule: "taint-policy", provenance: { kind: "tool", tool: "web_fetch", trust: "untrusted" } });
    expect(audit.records.at(-1)).toMatchObject({ type: "CLAIM", data: { kind: "decision", callId: "c9", verdict: "confirm" } });
  });
});

describe("Developer Mode", () => {
  it("prepends the taint header only when enabled", () => {
    const { guard } = taintedGuard({ developerMode: true });
    guard.beforeToolCall("s1", { tool: "exec", params: {} });
    expect(guard.beforeResponse("s1", "hi").text).toBe("🔴 [taint: untrusted | reason: web_fetch response | last impacted: exec]\nhi");
    const off = taintedGuard();
    expect(off.guard.beforeResponse("s1", "hi").text).toBe("hi");
  });
});

describe("Fail-Open Design", () => {
  it("an internal error never allows a side effect by default: logged, recorded, and the owner is asked", () => {
    const { guard, audit } = taintedGuard();
    const { logger, lines } = capturingLogger();
    const errors = lines.error;
    const broken = Guard.open({ workspaceDir: tempWorkspace(), audit: audit.audit, logger });
    broken.beginTurn({ sessionId: "s", sender: OWNER, provider: "telegram", text: "x" });
    (broken as unknown as { approvals: { issue: () => never } }).approvals.issue = () => {
      throw new Error("boom");
    };
    (broken as unknown as { sessions: Map<string, { graph: { add: (...a: unknown[]) => unknown } }> }).sessions.get("s")!.graph.add("tool", "t", "untrusted");
    // No approval code could be issued either: the host's own approval prompt asks.
    const decision = broken.beforeToolCall("s", { tool: "exec", params: {} });
    expect(decision).toMatchObject({ verdict: "confirm", rule: "fail-open", taint: "untrusted" });
    expect(decision.code).toBeUndefined();
    expect(decision.reason).toContain("Error: boom");
    expect(errors[0]).toContain("beforeToolCall failed");
    expect(audit.records.some((r) => r.type === "META" && r.data.kind === "fail-open")).toBe(true);
    void guard;
  });

  it("failMode closed blocks instead", () => {
    const broken = Guard.open({ config: { failMode: "closed" }, workspaceDir: tempWorkspace() });
    broken.beginTurn({ sessionId: "s", sender: OWNER, provider: "telegram", text: "x" });
    (broken as unknown as { gates: unknown }).gates = [{ name: "x", check: () => { throw new Error("boom"); }, hiddenTools: () => { throw new Error("boom"); } }];
    expect(broken.beforeToolCall("s", { tool: "read", params: {} })).toMatchObject({ verdict: "block", rule: "fail-closed" });
    expect(broken.toolsFor("s", ["read"])).toEqual([]);
  });
});

describe("bad input", () => {
  it("an invalid config throws before any state is touched", () => {
    const ws = tempWorkspace();
    expect(() => Guard.open({ config: { taintPolicy: { untrusted: "never" } }, workspaceDir: ws })).toThrow(ConfigError);
    expect(readdirSync(ws)).toEqual([]);
  });

  it("a tool call with no turn is decided as untrusted", () => {
    const guard = Guard.open({ workspaceDir: tempWorkspace() });
    expect(guard.beforeToolCall("nobody", { tool: "exec", params: {} })).toMatchObject({ verdict: "confirm", taint: "untrusted" });
  });

  it("a corrupt watermarks.json is moved aside and every session is untrusted until the owner resets it", () => {
    const ws = tempWorkspace();
    mkdirSync(join(ws, ".provenance"));
    writeFileSync(join(ws, ".provenance", "watermarks.json"), '{"version":1,"watermarks":{"s1":{"level":"trus');
    const { audit: sink, records } = memoryAudit();
    const guard = Guard.open({ workspaceDir: ws, audit: sink });
    expect(records.some((r) => r.data.kind === "state-corrupt")).toBe(true);
    expect(readdirSync(join(ws, ".provenance")).some((f) => f.startsWith("watermarks.json.corrupt-"))).toBe(true);
    expect(guard.beginTurn({ sessionId: "s1", sender: OWNER, provider: "telegram", text: "hi" }).taint).toBe("untrusted");
    expect(guard.beginTurn({ sessionId: "s1", sender: OWNER, provider: "telegram", text: ".reset-trust" }).command?.accepted).toBe(true);
    guard.endTurn("s1");
    expect(guard.beginTurn({ sessionId: "s1", sender: OWNER, provider: "telegram", text: "hi" }).taint).toBe("trusted");
    expect(guard.beginTurn({ sessionId: "other", sender: OWNER, provider: "telegram", text: "hi" }).taint).toBe("untrusted");
  });

  it("property: any config that validates never crashes the engine", () => {
    const ws = tempWorkspace();
    const tools = fc.constantFrom(...CONFIG_TOOLS);
    fc.assert(
      fc.property(validConfig, fc.array(fc.tuple(tools, fc.boolean()), { maxLength: 12 }), (config, calls) => {
        // The generator is built to the schema: a config it makes that the schema refuses is a bug in the test.
        expect(configInputSchema.safeParse(config).error).toBeUndefined();
        const errors: unknown[] = [];
        const guard = Guard.open({ config, workspaceDir: ws, logger: { info() {}, warn() {}, error: (_m, e) => errors.push(e) } });
        guard.beginTurn({ sessionId: "p", sender: OWNER, provider: "telegram", text: "go" });
        for (const [tool, result] of calls) {
          guard.toolsFor("p", [tool]);
          const decision = guard.beforeToolCall("p", { tool, params: { path: "notes.txt", content: "x" } });
          expect(["allow", "confirm", "block"]).toContain(decision.verdict);
          if (result) guard.afterToolCall("p", { tool, output: "out" });
        }
        guard.beforeResponse("p", "done");
        guard.endTurn("p");
        guard.close();
        expect(errors).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it("the config generator reaches real configurations, not only the default", () => {
    const samples = fc.sample(validConfig, { numRuns: 200, seed: 18 });
    const keys = new Set(samples.flatMap((c) => Object.keys(c)));
    expect(samples.filter((c) => Object.keys(c).length >= 3).length).toBeGreaterThan(100);
    expect([...keys].sort()).toEqual(Object.keys(configInputSchema.shape).filter((k) => k !== "workspaceDir").sort());
  });

});

describe("per-agent overrides", () => {
  it("apply to turns of that agent only", () => {
    const guard = Guard.open({ config: { agents: { strict: { toolOverrides: { read: { "*": "restrict" } } } } }, workspaceDir: tempWorkspace() });
    guard.beginTurn({ sessionId: "a", agentId: "strict", sender: OWNER, provider: "telegram", text: "x" });
    guard.beginTurn({ sessionId: "b", agentId: "main", sender: OWNER, provider: "telegram", text: "x" });
    expect(guard.beforeToolCall("a", { tool: "read", params: {} }).verdict).toBe("block");
    expect(guard.beforeToolCall("b", { tool: "read", params: {} }).verdict).toBe("allow");
  });
});

describe(".reset-trust when the owner is unknown", () => {
  it("is refused by default and accepted only with allowResetWhenOwnerUnknown", () => {
    for (const [flag, accepted] of [[false, false], [true, true]] as const) {
      const guard = Guard.open({ config: { allowResetWhenOwnerUnknown: flag }, workspaceDir: tempWorkspace() });
      const start = guard.beginTurn({ sessionId: "s", sender: { id: null, isOwner: null }, provider: null, text: ".reset-trust" });
      expect(start.command?.accepted).toBe(accepted);
    }
  });
});

describe("memory-file writes", () => {
  it("are allowed at trusted, and a staged write is recorded with target, content, taint, reason and time", () => {
    const { guard, workspaceDir } = taintedGuard();
    const d = guard.beforeToolCall("s1", { tool: "Write", params: { file_path: "memory/2026-11-22.md", content: "note" } });
    expect(d).toMatchObject({ verdict: "block", rule: "memory-write-staged", staged: { path: "memory/2026-11-22.md" } });
    const file = join(workspaceDir, ".provenance", "blocked-writes", `${d.staged!.id}.json`);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ targetPath: "memory/2026-11-22.md", content: "note", taint: "untrusted", reason: expect.stringContaining("memory file") });
    const trusted = Guard.open({ workspaceDir: tempWorkspace() });
    trusted.beginTurn({ sessionId: "s", sender: OWNER, provider: "telegram", text: "update soul" });
    expect(trusted.beforeToolCall("s", { tool: "write", params: { path: "SOUL.md", content: "x" } }).verdict).toBe("allow");
  });

  it("apply_patch touching a memory file under taint is refused", () => {
    const { guard } = taintedGuard();
    const patch = "*** Begin Patch\n*** Update File: notes.md\n@@\n-a\n+b\n*** Update File: SOUL.md\n@@\n-x\n+y\n*** End Patch";
    expect(guard.beforeToolCall("s1", { tool: "apply_patch", params: { input: patch } })).toMatchObject({ verdict: "block", rule: "memory-write-blocked" });
  });
});

describe("the ledger", () => {
  it("records every decision in the workspace's verifiable ledger, without the live approval code", async () => {
    const { defaultLedgerPath, scanLog } = await import("../../src/ledger/index.js");
    const ws = tempWorkspace();
    const guard = Guard.open({ workspaceDir: ws });
    guard.beginTurn({ sessionId: "s", sender: OWNER, provider: "telegram", text: "x" });
    guard.afterToolCall("s", { tool: "web_fetch", output: "page" });
    const d = guard.beforeToolCall("s", { tool: "exec", params: {} });
    guard.close();
    const text = readFileSync(defaultLedgerPath(ws), "utf8");
    expect(text).toContain('"kind":"decision"');
    expect(text).not.toContain(d.code!);
    const scan = scanLog(defaultLedgerPath(ws));
    expect(scan.fault).toBeUndefined();
    expect(scan.size).toBeGreaterThanOrEqual(4);
  });
});

describe("between turns", () => {
  it("a slash-command reset or approval between turns works, and a late tool call is not decided on a sealed graph", () => {
    const { guard } = taintedGuard();
    const d = guard.beforeToolCall("s1", { tool: "exec", params: {} });
    guard.endTurn("s1");
    expect(guard.approve("s1", "exec", d.code!, null, true)).toMatchObject({ accepted: true });
    expect(guard.beforeToolCall("s1", { tool: "exec", params: {} })).toMatchObject({ verdict: "allow", rule: "approved", taint: "untrusted" });
    guard.endTurn("s1");
    expect(guard.beforeToolCall("s1", { tool: "message", params: { target: "group:x" } })).toMatchObject({ verdict: "confirm", taint: "untrusted" });
    guard.endTurn("s1");
    expect(guard.resetTrust("s1", "trusted", true)).toMatchObject({ accepted: true });
    expect(guard.beginTurn({ sessionId: "s1", sender: OWNER, provider: "telegram", text: "go" }).taint).toBe("trusted");
  });
});

describe("previewTools", () => {
  it("narrows a session this process has not seen from its persisted watermark, without starting a turn", () => {
    const config = { toolOverrides: { exec: { untrusted: "restrict" } } };
    const { guard, workspaceDir } = taintedGuard(config);
    guard.endTurn("s1");
    guard.close();
    const restarted = Guard.open({ config, workspaceDir });
    expect(restarted.previewTools({ sessionId: "s1", sender: { id: "+1", isOwner: null }, provider: "telegram" }, ["read", "exec"])).toEqual(["read"]);
    expect(restarted.taint("s1")).toBeUndefined();
    expect(restarted.previewTools({ sessionId: "new", sender: { id: "+1", isOwner: null }, provider: "telegram" }, ["read", "exec"])).toEqual(["read", "exec"]);
    const strict = Guard.open({ config: { taintPolicy: { external: "restrict" } }, workspaceDir: tempWorkspace() });
    expect(strict.previewTools({ sessionId: "x", sender: { id: "+2", isOwner: false }, provider: "telegram" }, ["read", "exec"])).toEqual(["read"]);
  });
});
