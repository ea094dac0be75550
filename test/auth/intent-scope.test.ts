import { describe, expect, it } from "vitest";
import type { ActionClass } from "../../src/core/action-classes.js";
import type { GateCall } from "../../src/core/gate.js";
import { encodeScope } from "../../src/auth/action-scope.js";
import { buildLexicon, IntentInferrer } from "../../src/auth/intent-inference.js";
import { decideIntentScope } from "../../src/auth/intent-scope.js";
import { IntentScopeGate } from "../../src/auth/intent-scope-gate.js";
import { RecordingAudit } from "./helpers.js";

const infer = (text: string) => encodeScope(new IntentInferrer().infer(text));

describe("intent inference (built-in lexicon)", () => {
  const cases: [string, string][] = [
    ["check the weather", "read"],
    ["what's on my calendar tomorrow?", "read"],
    ["Send Alice the Q3 numbers", "read,send"],
    ["please SENDING it now", "read,send"],
    ["reply to Bob and update the notes file", "read,write,send"],
    ["run the tests then deploy", "read,exec"],
    ["buy 10 shares of ACME", "read,trade"],
    ["I sold the car and paid the fee", "read,trade"],
    ["Ｓｅｎｄ it", "read,send"],
    ["resend the invoice", "read"],
    ["check my mail", "read"],
  ];
  for (const [text, scope] of cases) {
    it(`${JSON.stringify(text)} → ${scope}`, () => expect(infer(text)).toBe(scope));
  }

  it("cannot read negation: it errs towards the words, within the source's cap", () => {
    expect(infer("don't send anything")).toBe("read,send");
  });

  it("configured words add to the lexicon, or replace it", () => {
    const added = new IntentInferrer(buildLexicon({ send: ["let know", "ping"] }, false));
    expect(encodeScope(added.infer("ping Bob"))).toBe("read,send");
    expect(encodeScope(added.infer("let Bob know"))).toBe("read");
    expect(encodeScope(added.infer("please let know Bob"))).toBe("read,send");
    expect(encodeScope(added.infer("send it"))).toBe("read,send");
    const replaced = new IntentInferrer(buildLexicon({ exec: ["go"] }, true));
    expect(encodeScope(replaced.infer("send it and go"))).toBe("read,exec");
  });

  it("is deterministic", () => {
    const a = new IntentInferrer();
    const b = new IntentInferrer();
    for (const t of ["send and run", "buy", "nothing"]) expect(encodeScope(a.infer(t))).toBe(encodeScope(b.infer(t)));
  });
});

describe("decideIntentScope", () => {
  const s = (...c: ActionClass[]) => new Set(c);
  it("inside the scope passes to the next gate (RFC-001 row 3)", () => {
    expect(decideIntentScope("human", s("read", "send"), "send")).toBeUndefined();
  });
  it("outside the scope is blocked (RFC-001 row 2)", () => {
    expect(decideIntentScope("human", s("read"), "send")).toMatchObject({ verdict: "block", rule: "intent-scope.out-of-scope" });
    expect(decideIntentScope("system", s("read"), "exec")).toMatchObject({ verdict: "block" });
  });
  it("an agent escalates only through the owner's approval code, or not at all", () => {
    expect(decideIntentScope("agent", s("read"), "read")).toBeUndefined();
    expect(decideIntentScope("agent", s("read"), "send")).toMatchObject({ verdict: "confirm", rule: "intent-scope.agent-escalation" });
    expect(decideIntentScope("agent", s("read"), "send", "block")).toMatchObject({ verdict: "block" });
  });
  it("unsigned authorises nothing, not even read", () => {
    expect(decideIntentScope("unsigned", s("read", "send"), "read")).toMatchObject({ verdict: "block", rule: "intent-scope.unsigned" });
  });
});

describe("IntentScopeGate", () => {
  const classes: Record<string, ActionClass> = { web_fetch: "read", send_email: "send", exec: "exec", write_file: "write" };
  const lookup = (tool: string): ActionClass => classes[tool] ?? "trade";
  const call = (tool: string, sessionId = "s1"): GateCall => ({ sessionId, turnId: "t1", tool, params: {}, taint: "trusted", senderIsOwner: true });

  it("checks each call against the scope set at turn start", () => {
    const gate = new IntentScopeGate(lookup);
    gate.setScope("s1", { source: "human", classes: new Set(["read"]) });
    expect(gate.check(call("web_fetch"))).toBeUndefined();
    expect(gate.check(call("send_email"))).toMatchObject({ verdict: "block" });
    expect(gate.check(call("some_unknown_tool"))).toMatchObject({ verdict: "block", reason: expect.stringContaining("trade") });
    gate.setScope("s1", { source: "human", classes: new Set(["read", "send"]) });
    expect(gate.check(call("send_email"))).toBeUndefined();
  });

  it("a session without a scope is unsigned: nothing runs", () => {
    const gate = new IntentScopeGate(lookup);
    expect(gate.check(call("web_fetch", "other"))).toMatchObject({ verdict: "block", rule: "intent-scope.unsigned" });
    gate.setScope("s1", { source: "human", classes: new Set(["read"]) });
    gate.clearScope("s1");
    expect(gate.check(call("web_fetch"))).toMatchObject({ verdict: "block" });
  });

  it("the scope it keeps is a copy", () => {
    const gate = new IntentScopeGate(lookup);
    const classesSet = new Set<ActionClass>(["read"]);
    gate.setScope("s1", { source: "human", classes: classesSet });
    classesSet.add("exec");
    expect(gate.check(call("exec"))).toMatchObject({ verdict: "block" });
  });

  it("hides blocked tools but keeps tools an approval could unlock", () => {
    const gate = new IntentScopeGate(lookup);
    gate.setScope("s1", { source: "human", classes: new Set(["read"]) });
    expect([...gate.hiddenTools("s1", Object.keys(classes))].sort()).toEqual(["exec", "send_email", "write_file"]);
    gate.setScope("s1", { source: "agent", classes: new Set(["read"]) });
    expect([...gate.hiddenTools("s1", Object.keys(classes))]).toEqual([]);
  });

  it("warn mode lets the call through and records what it would have done", () => {
    const audit = new RecordingAudit();
    const gate = new IntentScopeGate(lookup, { mode: "warn", audit });
    gate.setScope("s1", { source: "human", classes: new Set(["read"]) });
    expect(gate.check(call("send_email"))).toBeUndefined();
    expect(audit.records).toEqual([
      expect.objectContaining({ type: "META", data: expect.objectContaining({ event: "intent-scope-warning", tool: "send_email", wouldBe: "block" }) }),
    ]);
    expect(gate.hiddenTools("s1", ["send_email"]).size).toBe(0);
  });
});
