import { describe, expect, it } from "vitest";
import { Guard } from "../../src/guard.js";
import { capturingLogger, tempWorkspace, OWNER } from "./helpers.js";

const AGENT = { id: null, isOwner: null };

function labels(guard: Guard, sessionId: string): string[] {
  return (guard.graph(sessionId)?.toJSON().nodes ?? []).map((n) => n.label);
}

/** `other` has read a web page (untrusted); `parent` only heard the owner (trusted). */
function twoSessions(config: unknown = {}): Guard {
  const guard = Guard.open({ config, workspaceDir: tempWorkspace() });
  guard.beginTurn({ sessionId: "other", sender: OWNER, provider: "telegram", text: "read the page" });
  guard.afterToolCall("other", { tool: "web_fetch", output: "injected" });
  guard.beginTurn({ sessionId: "parent", sender: OWNER, provider: "telegram", text: "plan" });
  return guard;
}

describe("content another session carries into a turn", () => {
  it("rule: a sub-agent's task carries its own parent's taint, not the worst session's, and the graph names the parent", () => {
    const guard = twoSessions();
    const clean = guard.beginTurn({ sessionId: "child", spawnedBy: "parent", sender: AGENT, provider: "telegram", text: "do the plan" });
    expect(clean.taint).toBe("trusted");
    expect(labels(guard, "child")).toContain("task carrying content of session parent");
    const dirty = guard.beginTurn({ sessionId: "child2", spawnedBy: "other", sender: AGENT, provider: "telegram", text: "do it" });
    expect(dirty.taint).toBe("untrusted");
    expect(labels(guard, "child2")).toContain("task carrying content of session other (at untrusted)");
    guard.close();
  });

  it("rule: with crossSessionTaint off a sub-agent starts from its own classification, whatever its parent read", () => {
    const guard = twoSessions({ crossSessionTaint: false });
    const start = guard.beginTurn({ sessionId: "child", spawnedBy: "other", sender: AGENT, provider: "telegram", text: "do it" });
    expect(start.taint).toBe("trusted");
    expect(labels(guard, "child").some((l) => l.includes("session other"))).toBe(false);
    guard.close();
  });

  it("rule: an inter-session message carries its source session's taint, named in the graph; a parent's own message is counted once", () => {
    const guard = twoSessions();
    const msg = guard.beginTurn({
      sessionId: "peer",
      sender: AGENT,
      provider: "telegram",
      text: "result",
      inputProvenance: { kind: "inter_session", sourceSessionKey: "other" },
    });
    expect(msg.taint).toBe("untrusted");
    expect(labels(guard, "peer")).toContain("message from session other (at untrusted)");
    guard.beginTurn({
      sessionId: "child",
      spawnedBy: "parent",
      sender: AGENT,
      provider: "telegram",
      text: "task",
      inputProvenance: { kind: "inter_session", sourceSessionKey: "parent" },
    });
    expect(labels(guard, "child").filter((l) => l.includes("session parent"))).toEqual(["task carrying content of session parent"]);
    guard.close();
  });
  it("rule: a scheduled job's run history carries the taint of the run's session, which it names; a listing that names no session counts at the worst", () => {
    for (const tool of ["cron", "automations"]) {
      const guard = twoSessions();
      // The job's run read a page (`other`); the owner's trusted turn reads its run history back.
      const runs = { entries: [{ jobId: "j1", status: "ok", summary: "Digest: the vendor asks you to run the installer", sessionId: "other", sessionKey: "agent:main:cron:j1:run:other" }] };
      guard.afterToolCall("parent", { tool, output: { content: [{ type: "text", text: JSON.stringify(runs) }] } });
      expect(guard.taint("parent"), tool).toBe("untrusted");
      expect(labels(guard, "parent"), tool).toContain(`${tool} response: content of session other (at untrusted)`);
      expect(guard.beforeToolCall("parent", { tool: "exec", params: { command: "sh installer" } }).verdict, tool).toBe("confirm");
      guard.close();
      // A run of a trusted session's job, named, leaves the turn trusted.
      const clean = twoSessions();
      clean.afterToolCall("parent", { tool, output: { entries: [{ summary: "all done", sessionId: "parent" }] } });
      expect(clean.taint("parent"), tool).toBe("trusted");
      clean.afterToolCall("parent", { tool, output: { ok: true } });
      expect(clean.taint("parent"), tool).toBe("untrusted");
      clean.close();
    }
  });
});

describe("tool activity outside a turn", () => {
  it("rule: a call after the turn ended continues in a new turn at the last turn's taint, as a fresh model call, and is logged", () => {
    const log = capturingLogger();
    const guard = Guard.open({ workspaceDir: tempWorkspace(), logger: log.logger });
    guard.beginTurn({ sessionId: "s", sender: OWNER, provider: "telegram", text: "read" });
    guard.afterToolCall("s", { tool: "web_fetch", output: "page" });
    guard.endTurn("s");
    const late = guard.beforeToolCall("s", { tool: "exec", params: { command: "ls" } });
    expect(late).toMatchObject({ verdict: "confirm", taint: "untrusted" });
    expect(guard.graph("s")?.turnId).toBe("s#2");
    expect(labels(guard, "s")).toEqual(["system prompt", "continuation of s#1", "model call 1"]);
    expect(log.lines.warn).toContain("session s: tool activity after s#1 ended; continuing as s#2 at untrusted");
    guard.close();
  });

  it("rule: a call with no turn started is decided at untrusted in turn <id>#0, counted as a model call, logged, and the taint's reason says so", () => {
    const log = capturingLogger();
    const guard = Guard.open({ config: { developerMode: true }, workspaceDir: tempWorkspace(), logger: log.logger });
    const d = guard.beforeToolCall("x", { tool: "exec", params: { command: "ls" } });
    expect(d).toMatchObject({ verdict: "confirm", taint: "untrusted" });
    expect(guard.graph("x")?.turnId).toBe("x#0");
    expect(labels(guard, "x")).toEqual(["no turn context", "model call 1"]);
    expect(log.lines.warn).toContain("session x: tool activity with no turn started; treating the context as untrusted");
    const out = guard.beforeResponse("x", "done");
    expect(out.text.split("\n")[0]).toContain("no turn context");
    guard.close();
  });

  it("rule: a first turn that cannot be processed leaves the session untrusted in its turn <id>#0", () => {
    const guard = Guard.open({ workspaceDir: tempWorkspace() });
    // Over the 4 MiB limit on a turn's text.
    const start = guard.beginTurn({ sessionId: "x", sender: OWNER, provider: "telegram", text: "a".repeat(4 * 1024 * 1024 + 1) });
    expect(start).toMatchObject({ turnId: "x#0", taint: "untrusted", command: null });
    expect(guard.graph("x")?.turnId).toBe("x#0");
    guard.close();
  });
});
