import { describe, expect, it } from "vitest";
import type { ActionClass } from "../../src/core/action-classes.js";
import type { GateCall } from "../../src/core/gate.js";
import { decodeScope, encodeScope } from "../../src/auth/action-scope.js";
import { buildLexicon, IntentInferrer, tokenize } from "../../src/auth/intent-inference.js";
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

  it("knows the regular forms of a verb: a dropped e, a doubled consonant", () => {
    expect(infer("I am writing the notes")).toBe("read,write");
    expect(infer("the tests keep running")).toBe("read,exec");
    expect(infer("committed it yesterday")).toBe("read,write");
    expect(infer("we are committing now")).toBe("read,write");
  });

  it("a configured word is read as a message's words are: case and spacing do not matter; one with no letters adds nothing", () => {
    const added = new IntentInferrer(buildLexicon({ send: ["  Ping ", "—"], exec: ["let know"] }, false));
    expect(encodeScope(added.infer("ping Bob"))).toBe("read,send");
    expect(encodeScope(added.infer("check the weather"))).toBe("read");
    expect(encodeScope(added.infer("please let know"))).toBe("read,exec");
  });

  it("splits words at spaces and punctuation, keeping apostrophes inside a word", () => {
    expect(tokenize("O'Clock, can't—won’t! rock'n'roll 42x")).toEqual(["o'clock", "can't", "won’t", "rock'n'roll", "42x"]);
    expect(tokenize("'quoted' end'")).toEqual(["quoted", "end"]);
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
  it("says which source authorised what, and what the call needed", () => {
    expect(decideIntentScope("unsigned", s(), "exec")?.reason).toBe("the turn's instruction is not authenticated, so it authorises no exec call");
    expect(decideIntentScope("agent", s("read", "send"), "trade")?.reason).toBe("another agent's message authorises read,send, not trade; the owner must approve");
    expect(decideIntentScope("human", s(), "write")?.reason).toBe("the human message authorises none, not write");
  });
  it("a parsed scope cannot be changed by anyone holding it", () => {
    const scope = decodeScope("read,send") as Set<ActionClass>;
    expect(() => scope.add("exec")).toThrow("a parsed scope is read-only");
    expect(() => scope.delete("send")).toThrow("a parsed scope is read-only");
    expect(() => scope.clear()).toThrow("a parsed scope is read-only");
    expect(encodeScope(scope)).toBe("read,send");
  });
});

describe("IntentScopeGate", () => {
  const classes: Record<string, ActionClass> = { web_fetch: "read", send_email: "send", exec: "exec", write_file: "write" };
  const lookup = (tool: string): ActionClass => classes[tool] ?? "trade";
  const call = (tool: string, sessionId = "s1"): GateCall => ({ sessionId, turnId: "t1", tool, params: {}, taint: "trusted", senderIsOwner: true });

  it("checks each call against the scope set at turn start", () => {
    const gate = new IntentScopeGate(lookup);
    expect(gate.name).toBe("intent-scope");
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
