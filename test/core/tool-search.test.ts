import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DecidedCalls } from "../../src/core/decided-calls.js";
import { discoveryOutputTrust, parentCallId, sameCall, sanitisedCallId, targetTool, unwrapToolCall } from "../../src/core/tool-search.js";
import { TOOL_CATALOGUE } from "../../src/core/tool-catalogue.js";

describe("unwrapToolCall reads a tool_call as OpenClaw does", () => {
  it.each([
    [{ id: "exec", args: { command: "ls" } }, "exec", { command: "ls" }],
    [{ id: "openclaw:core:exec", args: { command: "ls" } }, "exec", { command: "ls" }],
    [{ id: "openclaw:e2e-marker-tool:e2e_marker", input: { path: "m" } }, "e2e_marker", { path: "m" }],
    [{ toolId: "message", args: { target: "x" } }, "message", { target: "x" }],
    [{ name: "write", args: { path: "SOUL.md" } }, "write", { path: "SOUL.md" }],
    // flattened arguments (the host repairs these) and dotted ones
    [{ id: "exec", command: "ls" }, "exec", { command: "ls" }],
    [{ id: "exec", args: {}, command: "ls" }, "exec", { command: "ls" }],
    [{ id: "message", "args.target": "a", args: { message: "m" } }, "message", { target: "a", message: "m" }],
    // third-party ids keep their source: never a core tool of the same name
    [{ id: "mcp:evil:exec", args: {} }, "mcp:evil:exec", {}],
    [{ id: "client:client:write", args: {} }, "client:client:write", {}],
    [{ id: "client:c:c__write", args: {} }, "client:c:c__write", {}],
    // an MCP server's tool by the name the host gives it and calls it by, as its catalogue id ends
    [{ id: "mcp:rug:rug__notes", args: { text: "x" } }, "rug__notes", { text: "x" }],
    [{ id: "mcp:my.server:my_server__notes", args: {} }, "my_server__notes", {}],
    [{ id: "mcp:s:__notes", args: {} }, "mcp:s:__notes", {}],
    [{ id: "mcp:s:notes__", args: {} }, "mcp:s:notes__", {}],
    [{ id: "mcp:s:a:b__c", args: {} }, "mcp:s:a:b__c", {}],
    [{ id: "mcp:s:b__c:d", args: {} }, "mcp:s:b__c:d", {}],
    [{ args: { command: "ls" } }, "", { command: "ls" }],
    [{ id: "  exec  ", args: { a: 1 } }, "exec", { a: 1 }],
  ])("%j -> %s", (params, tool, args) => {
    expect(unwrapToolCall({ tool: "tool_call", params })).toEqual({ tool, params: args });
  });

  it("leaves every other tool alone", () => {
    expect(unwrapToolCall({ tool: "exec", params: { id: "x" } })).toBeNull();
  });

  it("a __proto__ argument stays data", () => {
    const out = unwrapToolCall({ tool: "tool_call", params: JSON.parse('{"id":"exec","args":{"__proto__":{"polluted":true},"command":"ls"}}') as Record<string, unknown> });
    expect(Object.hasOwn(out?.params ?? {}, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("property: never throws, and a third-party id never resolves to a catalogued tool", () => {
    const names = Object.keys(TOOL_CATALOGUE);
    fc.assert(
      fc.property(fc.constantFrom("mcp", "client"), fc.string(), fc.constantFrom(...names), fc.dictionary(fc.string(), fc.jsonValue()), (source, server, name, extra) => {
        const out = unwrapToolCall({ tool: "tool_call", params: { ...extra, id: `${source}:${server.replaceAll(":", "")}:${name}` } });
        expect(Object.hasOwn(TOOL_CATALOGUE, out?.tool ?? "")).toBe(false);
      }),
    );
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (params) => void unwrapToolCall({ tool: "tool_call", params })));
  });

  it("targetTool strips the OpenClaw source, and an MCP id's down to the host's name for the tool", () => {
    expect(targetTool("openclaw:core:web_fetch")).toBe("web_fetch");
    expect(targetTool("web_fetch")).toBe("web_fetch");
    expect(targetTool("mcp:s:web_fetch")).toBe("mcp:s:web_fetch");
    expect(targetTool("mcp:s:s__web_fetch")).toBe("s__web_fetch");
    expect(Object.keys(TOOL_CATALOGUE).filter((name) => name.includes("__"))).toEqual([]);
  });
});

describe("inner call ids", () => {
  it("finds the parent in the id the host gives the inner call", () => {
    expect(parentCallId("tool_search_code:call_3:exec:2", "exec")).toBe("call_3");
    expect(parentCallId("tool_search_code:run:1:call:7:web_fetch:12", "web_fetch")).toBe("run:1:call:7");
    expect(parentCallId("call_3", "exec")).toBeNull();
    expect(parentCallId("tool_search_code:call_3:exec:2", "read")).toBeNull();
    expect(parentCallId("tool_search_code::exec:2", "exec")).toBeNull();
  });

  it("property: the parent read back is the sanitised parent the host wrote", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.constantFrom("exec", "web_fetch", "llm-task", "a.b"), fc.nat(), (parent, tool, n) => {
        const id = `tool_search_code:${sanitisedCallId(parent)}:${tool}:${n}`;
        expect(parentCallId(id, tool)).toBe(sanitisedCallId(parent));
      }),
    );
  });

  it("sameCall compares tool and arguments, not key order", () => {
    expect(sameCall({ tool: "exec", params: { a: 1, b: [1, { c: 2 }] } }, { tool: "exec", params: { b: [1, { c: 2 }], a: 1 } })).toBe(true);
    expect(sameCall({ tool: "exec", params: { command: "ls" } }, { tool: "exec", params: { command: "rm" } })).toBe(false);
    expect(sameCall({ tool: "exec", params: {} }, { tool: "process", params: {} })).toBe(false);
  });
});

describe("discovery output trust", () => {
  it("the host's own entries are trusted; an MCP or client entry is not, also inside JSON text", () => {
    expect(discoveryOutputTrust([{ id: "openclaw:core:ls", source: "openclaw" }])).toBe("trusted");
    expect(discoveryOutputTrust([{ id: "mcp:cal:x", source: "mcp" }])).toBe("untrusted");
    expect(discoveryOutputTrust({ content: [{ type: "text", text: JSON.stringify([{ source: "client" }], null, 2) }] })).toBe("untrusted");
    expect(discoveryOutputTrust(JSON.stringify({ content: [{ text: JSON.stringify({ source: "mcp" }) }] }))).toBe("untrusted");
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(discoveryOutputTrust(cycle)).toBe("untrusted");
  });
});

describe("DecidedCalls", () => {
  it("an inner call passes as its parent's decision once; a second one with the same parent is decided", () => {
    const calls = new DecidedCalls();
    const outer = { id: "c1", tool: "tool_call", params: { id: "exec", args: { command: "ls" } } };
    const next = calls.toDecide("s", outer);
    expect(next).toEqual({ kind: "decide", call: { tool: "exec", params: { command: "ls" } } });
    calls.decided("s", outer, { tool: "exec", params: { command: "ls" } }, "allow");
    const inner = { id: "tool_search_code:c1:exec:1", tool: "exec", params: { command: "ls" }, parentId: "c1" };
    expect(calls.toDecide("s", inner).kind).toBe("decided-as-parent");
    expect(calls.toDecide("s", inner).kind).toBe("decide");
  });

  it("a blocked wrapper has no inner call to pass; a held one's result is not output unless the host says it ran", () => {
    const calls = new DecidedCalls();
    const outer = { id: "c1", tool: "tool_call", params: { id: "exec", args: {} } };
    calls.decided("s", outer, { tool: "exec", params: {} }, "block");
    expect(calls.toDecide("s", { id: "i", tool: "exec", params: {}, parentId: "c1" }).kind).toBe("decide");
    expect(calls.result("s", { id: "c1", tool: "tool_call", output: "blocked" })).toEqual({ ran: false, tool: "exec" });
    calls.decided("s", { id: "c2", tool: "web_fetch", params: {} }, { tool: "web_fetch", params: {} }, "confirm");
    expect(calls.result("s", { id: "c2", tool: "web_fetch", output: "page", ran: true })).toEqual({ ran: true, tool: "web_fetch" });
    calls.clear("s");
    expect(calls.result("s", { id: "c1", tool: "tool_call", output: "x" })).toEqual({ ran: true, tool: "" });
  });

  it("only a wrapper stands for an inner call: a held call of another tool named as a parent is not one", () => {
    const calls = new DecidedCalls();
    const held = { id: "x1", tool: "exec", params: { command: "rm -rf ~" } };
    calls.decided("s", held, { tool: "exec", params: { command: "rm -rf ~" } }, "confirm");
    expect(calls.toDecide("s", { id: "x2", tool: "exec", params: { command: "rm -rf ~" }, parentId: "x1" }).kind).toBe("decide");
  });

  it("a wrapper's own result is held to the trust its inner call's result entered at, the worst of several", () => {
    const calls = new DecidedCalls();
    const outer = { id: "c1", tool: "tool_call", params: { id: "web_fetch", args: { url: "https://x.example" } } };
    calls.decided("s", outer, { tool: "web_fetch", params: { url: "https://x.example" } }, "allow");
    calls.innerResult("s", "c1", "external");
    calls.innerResult("s", "c1", "untrusted");
    calls.innerResult("s", "c1", "shared");
    calls.innerResult("s", undefined, "trusted");
    expect(calls.result("s", { id: "c1", tool: "tool_call", output: "page" })).toEqual({ ran: true, tool: "web_fetch", atMost: "untrusted" });
    // A discovery wrapper's own trust and its inner call's: the worse of the two.
    const search = { id: "c2", tool: "tool_search_code", params: {} };
    calls.innerResult("s", "c2", "external");
    expect(calls.result("s", { ...search, output: [{ id: "openclaw:core:ls", source: "openclaw" }] })).toEqual({ ran: true, tool: "tool_search_code", atMost: "external" });
    expect(calls.result("s", { ...search, output: [{ id: "mcp:x", source: "mcp" }] })).toEqual({ ran: true, tool: "tool_search_code", atMost: "untrusted" });
  });
});
