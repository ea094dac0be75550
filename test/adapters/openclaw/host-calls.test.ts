import { describe, expect, it } from "vitest";
import { HostCalls } from "../../../src/adapters/openclaw/host-calls.js";

/** The id OpenClaw gives the call a Tool Search wrapper makes: `tool_search_code:<parent, sanitised>:<tool>:<n>`. */
const innerId = (parent: string, tool: string, n = 1) => `tool_search_code:${parent}:${tool}:${n}`;

describe("which OpenClaw call made a wrapped call, and whether it ran", () => {
  it("a wrapped call names its wrapper only once the wrapper went ahead: allowed, or approved in the host's prompt", () => {
    const calls = new HostCalls();
    expect(calls.noteCall("s", "call 1", "tool_call")).toBeUndefined();
    // Held: the inner id is the model's to write, and names no wrapper that ran.
    expect(calls.noteCall("s", innerId("call_1", "exec"), "exec")).toBeUndefined();
    calls.noteAllowed("s", "call 1");
    expect(calls.noteCall("s", innerId("call_1", "exec", 2), "exec")).toBe("call 1");
    calls.noteCall("s", "c 2", "tool_search_code");
    calls.noteApproved("s", "c 2");
    expect(calls.noteCall("s", innerId("c_2", "web_fetch"), "web_fetch")).toBe("c 2");
    expect(calls.parentOf("s", innerId("c_2", "web_fetch"), "web_fetch")).toBe("c 2");
  });

  it("only a wrapper tool's id is mapped from the form the host writes into an inner id", () => {
    const calls = new HostCalls();
    calls.noteCall("s", "x 1", "exec");
    calls.noteAllowed("s", "x 1");
    expect(calls.parentOf("s", innerId("x_1", "exec"), "exec")).toBe("x_1");
    expect(calls.noteCall("s", innerId("x_1", "exec"), "exec")).toBeUndefined();
  });

  it("a session's calls are its own", () => {
    const calls = new HostCalls();
    calls.noteCall("s", "w", "tool_call");
    calls.noteAllowed("s", "w");
    calls.noteApproved("s", "w");
    expect(calls.noteCall("other", innerId("w", "exec"), "exec")).toBeUndefined();
    expect(calls.ran("other", "w", false)).toBeUndefined();
  });

  it("an id not of a wrapped call's form, or none, names no parent", () => {
    const calls = new HostCalls();
    expect(calls.noteCall("s", undefined, "tool_call")).toBeUndefined();
    expect(calls.parentOf("s", undefined, "exec")).toBeUndefined();
    expect(calls.parentOf("s", "exec:1", "exec")).toBeUndefined();
    expect(calls.parentOf("s", innerId("p", "exec"), "read")).toBeUndefined();
  });

  it("ran: approved in the host's prompt ran; a failure of a call no hook saw did not; otherwise the guard's record decides", () => {
    const calls = new HostCalls();
    calls.noteCall("s", "held", "exec");
    calls.noteApproved("s", "held");
    expect(calls.ran("s", "held", true)).toBe(true);
    expect(calls.ran("s", "never-seen", true)).toBe(false);
    expect(calls.ran("s", "never-seen", false)).toBeUndefined();
    calls.noteCall("s", "seen", "exec");
    expect(calls.ran("s", "seen", true)).toBeUndefined();
    expect(calls.ran("s", undefined, true)).toBeUndefined();
  });

  it("remembers the last 4096 calls of each kind; the oldest is forgotten first", () => {
    const calls = new HostCalls();
    calls.noteCall("s", "first", "exec");
    for (let i = 0; i < 4095; i++) calls.noteCall("s", `c${i}`, "exec");
    expect(calls.ran("s", "first", true)).toBeUndefined();
    calls.noteCall("s", "one-more", "exec");
    expect(calls.ran("s", "first", true)).toBe(false);
    expect(calls.ran("s", "c0", true)).toBeUndefined();
  });
});
