import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { classify, parseLine } from "../../src/adapters/mcp/json-rpc.js";
import { LineSplitter } from "../../src/adapters/mcp/line-splitter.js";
import { repeatedMemberName } from "../../src/adapters/mcp/repeated-member-name.js";
import { listingPinStores } from "../../src/adapters/mcp/listed-content.js";
import { McpProxy } from "../../src/adapters/mcp/mcp-proxy.js";
import { Guard } from "../../src/guard.js";
import { PendingApprovalStore } from "../../src/state/pending-approval-store.js";
import { ToolPinStore } from "../../src/state/tool-pin-store.js";
import { chunked, deepJsonText, fuzzParams, FUZZ_TIMEOUT_MS, hostileName, hostileValue, scratchDir, shallowValue } from "./fuzz-settings.js";


const lineText = fc.oneof(fc.string({ unit: "binary", maxLength: 60 }), fc.json({ maxDepth: 3 }));

describe("the MCP line splitter under fuzzing", () => {
  it("yields the same lines however the stream is cut", () => {
    fc.assert(
      fc.property(fc.array(lineText, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 10 }), fc.boolean(), (lines, cuts, trailing) => {
        const text = lines.join("\n") + (trailing ? "\n" : "");
        const bytes = Buffer.from(text, "utf8");
        const splitter = new LineSplitter(1 << 20);
        const got: string[] = [];
        for (const chunk of chunked(bytes, cuts)) for (const e of splitter.push(chunk)) if (e.kind === "line") got.push(e.bytes.toString("utf8"));
        for (const e of splitter.end()) if (e.kind === "line") got.push(e.bytes.toString("utf8"));
        const expected = text
          .split("\n")
          .map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l))
          .filter((l) => !/^[ \t\r]*$/u.test(l));
        expect(got).toEqual(expected);
      }),
      fuzzParams("mcp-line-splitter", 4),
    );
  }, FUZZ_TIMEOUT_MS);

  it("reports a line over the limit once and keeps the lines after it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.array(fc.nat(), { maxLength: 6 }), (limit, cuts) => {
        const bytes = Buffer.from(`${"x".repeat(limit + 1)}\nok\n`);
        const splitter = new LineSplitter(limit);
        const events = chunked(bytes, cuts).flatMap((c) => splitter.push(c));
        expect(events.filter((e) => e.kind === "oversize")).toHaveLength(limit >= 2 ? 1 : 2);
        expect(events.filter((e) => e.kind === "line").map((e) => (e.kind === "line" ? e.bytes.toString() : ""))).toEqual(limit >= 2 ? ["ok"] : []);
      }),
      fuzzParams("mcp-line-limit", 4),
    );
  }, FUZZ_TIMEOUT_MS);
});

describe("JSON-RPC classification under fuzzing", () => {
  it("never throws, and classifies every value as a message, a batch or an invalid one with a reason", () => {
    const value = fc.oneof(
      hostileValue,
      fc.record({ jsonrpc: fc.constantFrom("2.0", "1.0", 2), id: fc.oneof(fc.integer(), fc.double(), hostileName, fc.constant(null)), method: fc.oneof(hostileName, fc.integer()), params: hostileValue, result: hostileValue, error: hostileValue }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(fc.oneof(value, fc.array(value, { maxLength: 3 })), (v) => {
        const c = classify(v);
        if (c.kind === "invalid") expect(c.reason.length).toBeGreaterThan(0);
        if (c.kind === "message" && c.message.kind === "request") expect(["string", "number"]).toContain(typeof c.message.id);
      }),
      fuzzParams("mcp-json-rpc-classify", 4),
    );
  }, FUZZ_TIMEOUT_MS);

  it("parses arbitrary bytes without throwing", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const p = parseLine(bytes, true);
        if (!p.ok) expect(p.reason).toMatch(/UTF-8|JSON/);
      }),
      fuzzParams("mcp-parse-line", 4),
    );
  }, FUZZ_TIMEOUT_MS);
});

/** A JSON document as its text spells it: an object is its members in order, names free to repeat. */
type Spelled = { readonly members: readonly (readonly [string, boolean, Spelled])[] } | { readonly items: readonly Spelled[] } | { readonly leaf: unknown };

// Few names, so they repeat; among them the characters a scanner of JSON text could trip on.
const memberName = fc.constantFrom("a", "A", "b", "", '"', "\\", "}", ",", ":", "é", "\u{1d11e}", "\ud800", "path", "PATH");
const spelled: fc.Arbitrary<Spelled> = fc.letrec<{ node: Spelled }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ leaf: fc.oneof(fc.string({ unit: fc.constantFrom("a", '"', "\\", "{", "}", "[", "]", ",", ":", " ") }), fc.integer(), fc.boolean(), fc.constant(null)) }),
    fc.record({ members: fc.array(fc.tuple(memberName, fc.boolean(), tie("node")), { maxLength: 4 }) }),
    fc.record({ items: fc.array(tie("node"), { maxLength: 3 }) }),
  ),
})).node;

/** Its text, with or without white space: each name spelled plainly or every unit as a \u escape, as its member says. */
function spell(node: Spelled, gap: string): string {
  if ("leaf" in node) return JSON.stringify(node.leaf);
  if ("items" in node) return `[${gap}${node.items.map((item) => spell(item, gap)).join(`,${gap}`)}${gap}]`;
  const name = (n: string, escaped: boolean) => (escaped ? `"${[...Array(n.length).keys()].map((i) => `\\u${n.charCodeAt(i).toString(16).padStart(4, "0")}`).join("")}"` : JSON.stringify(n));
  return `{${gap}${node.members.map(([n, escaped, v]) => `${name(n, escaped)}${gap}:${gap}${spell(v, gap)}`).join(`,${gap}`)}${gap}}`;
}

/** The reference: the first name, in the text's order, that its own object has already had. */
function firstRepeat(node: Spelled): string | null {
  if ("leaf" in node) return null;
  if ("items" in node) {
    for (const item of node.items) {
      const found = firstRepeat(item);
      if (found !== null) return found;
    }
    return null;
  }
  const seen = new Set<string>();
  for (const [name, , value] of node.members) {
    if (seen.has(name)) return name;
    seen.add(name);
    const found = firstRepeat(value);
    if (found !== null) return found;
  }
  return null;
}

describe("repeated member names under fuzzing", () => {
  it("agree with a walk of the document, however its names are spelled", () => {
    fc.assert(
      fc.property(spelled, fc.constantFrom("", " ", "\n\t "), (node, gap) => {
        const text = spell(node, gap);
        expect(() => JSON.parse(text) as unknown).not.toThrow();
        expect(repeatedMemberName(text)?.name ?? null).toBe(firstRepeat(node));
        // Folding case finds a repeat wherever the exact comparison does, and perhaps earlier.
        if (firstRepeat(node) !== null) expect(repeatedMemberName(text, true)).not.toBeNull();
      }),
      fuzzParams("mcp-repeated-names", 4),
    );
  }, FUZZ_TIMEOUT_MS);

  it("find none in what JSON.stringify writes, and end on any text without throwing", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.string({ unit: fc.constantFrom("{", "}", "[", "]", '"', "\\", ",", ":", "a", "u") }), (value, hostile) => {
        expect(repeatedMemberName(JSON.stringify(value))).toBeNull();
        const found = repeatedMemberName(hostile, true);
        expect(found === null || typeof found.name === "string").toBe(true);
      }),
      fuzzParams("mcp-repeated-names-total", 4),
    );
  }, FUZZ_TIMEOUT_MS);

  it("refuse the line as parseLine reads it", () => {
    const repeated = parseLine(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}'), false);
    expect(repeated.ok && repeated.repeatedName?.name).toBe("name");
    const plain = parseLine(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}'), false);
    expect(plain.ok && plain.repeatedName).toBeNull();
    const cased = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","Name":"b"}}');
    expect(parseLine(cased, false)).toMatchObject({ ok: true, repeatedName: null });
    expect(parseLine(cased, true)).toMatchObject({ ok: true, repeatedName: { name: "Name", earlier: "name" } });
  });
});

describe("the MCP proxy under hostile client input", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** A proxy with a real guard in a scratch workspace; what it writes to either side is kept. */
  function proxyRig(config: unknown, audit?: { record: () => void }) {
    const workspace = scratchDir("provenant-mcp-fuzz-");
    dirs.push(workspace);
    const guard = Guard.open({ config, workspaceDir: workspace, ...(audit ? { audit } : {}) });
    const toClient: string[] = [];
    const toServer: string[] = [];
    const proxy = new McpProxy({
      server: "srv",
      guard,
      sessionId: "fuzz",
      pins: new ToolPinStore(workspace, "srv"),
      listingPins: listingPinStores(workspace, "srv"),
      approvals: new PendingApprovalStore(workspace),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      now: Date.now,
      randomId: () => "r",
      toClient: (line) => toClient.push(line.toString()),
      toServer: (line) => toServer.push(line.toString()),
      approveCommand: (c) => c,
      acceptCommand: (t) => t,
    });
    return { guard, proxy, toClient, toServer };
  }

  it("never forwards a tools/call the guard did not allow, whatever else the line holds", () => {
    // Every call of this server is held: nothing it is asked may reach it.
    const { guard, proxy, toServer } = proxyRig({ toolOutputTaints: { "mcp__srv__*": "untrusted" }, taintPolicy: { trusted: "confirm" } });
    const call = fc.record({ jsonrpc: fc.constant("2.0"), id: fc.oneof(fc.integer(), hostileName), method: fc.constant("tools/call"), params: fc.oneof(shallowValue, fc.record({ name: hostileName, arguments: shallowValue })) }, { requiredKeys: ["method"] });
    const line = fc.oneof(
      call.map((c) => JSON.stringify(c)),
      fc.array(call, { minLength: 1, maxLength: 3 }).map((b) => JSON.stringify(b)),
      fc.string({ unit: "binary", maxLength: 80 }),
      deepJsonText.map((deep) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":${deep}}}}`),
    );
    try {
      fc.assert(
        fc.property(line, (text) => {
          toServer.length = 0;
          proxy.fromClient(Buffer.from(text, "utf8"));
          for (const sent of toServer) expect(sent).not.toMatch(/tools\/call/);
        }),
        fuzzParams("mcp-proxy-client-lines", 0.5),
      );
    } finally {
      guard.close();
    }
  }, FUZZ_TIMEOUT_MS);

  it("passes the client a server's answer only for a request the server was sent and has not answered", () => {
    // Reads run, writes are held: some requests reach the server, some never do.
    const { guard, proxy, toClient, toServer } = proxyRig({ toolOutputTaints: { "mcp__srv__*": "untrusted" }, toolOverrides: { mcp__srv__read: { "*": "allow" } } });
    proxy.fromClient(Buffer.from('{"jsonrpc":"2.0","id":"list","method":"tools/list"}'));
    proxy.fromServer(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: "list", result: { tools: [{ name: "read" }, { name: "write" }] } })));
    const id = fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constantFrom("0", "a"));
    const step = fc.oneof(
      fc.record({ from: fc.constant("client" as const), id, method: fc.constantFrom("tools/call", "ping", "resources/read"), tool: fc.constantFrom("read", "write") }),
      fc.record({ from: fc.constant("server" as const), id: fc.oneof(id, fc.constant(null)), error: fc.boolean() }),
    );
    const key = (v: unknown) => `${typeof v}:${String(v)}`;
    try {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
          const forwarded = new Set<string>();
          for (const s of steps) {
            toClient.length = 0;
            toServer.length = 0;
            if (s.from === "client") {
              const params = s.method === "tools/call" ? { name: s.tool, arguments: {} } : {};
              proxy.fromClient(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: s.id, method: s.method, params })));
              for (const sent of toServer) forwarded.add(key((JSON.parse(sent) as { id: unknown }).id));
              continue;
            }
            const body = s.error ? { error: { code: 1, message: "SERVER" } } : { result: { content: [{ type: "text", text: "SERVER" }] } };
            proxy.fromServer(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: s.id, ...body })));
            const passed = toClient.filter((l) => l.includes("SERVER"));
            const open = s.id !== null && forwarded.delete(key(s.id));
            // An error with no id answers no request; anything else passes only as the answer to an open request.
            expect(passed).toHaveLength(open || (s.id === null && s.error) ? 1 : 0);
          }
          proxy.serverClosed();
        }),
        fuzzParams("mcp-proxy-server-answers", 0.5),
      );
    } finally {
      guard.close();
    }
  }, FUZZ_TIMEOUT_MS);

  it("never shows the client a tool listing it did not check against the pins, whatever the server answers", () => {
    const { guard, proxy, toClient } = proxyRig({}, { record: () => undefined });
    const pinned = { name: "read", description: "reads", inputSchema: { type: "object" } };
    proxy.fromClient(Buffer.from('{"jsonrpc":"2.0","id":0,"method":"tools/list"}'));
    proxy.fromServer(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 0, result: { tools: [pinned] } })));
    const tool = fc.oneof(
      fc.constant(pinned),
      fc.record({ name: fc.oneof(fc.constant("read"), hostileName), description: fc.oneof(fc.constant("reads"), fc.string({ maxLength: 20 })), inputSchema: shallowValue }, { requiredKeys: [] }),
      shallowValue,
    );
    const answer = fc.oneof(
      fc.array(tool, { maxLength: 4 }).map((tools) => JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools } })),
      deepJsonText.map((deep) => `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read","description":"reads","inputSchema":${deep}}]}}`),
      fc.string({ unit: "binary", maxLength: 60 }).map((t) => `{"jsonrpc":"2.0","id":1,"result":${JSON.stringify(t)}}`),
    );
    try {
      fc.assert(
        fc.property(answer, (line) => {
          toClient.length = 0;
          proxy.fromClient(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'));
          proxy.fromServer(Buffer.from(line, "utf8"));
          for (const sent of toClient) {
            const message = JSON.parse(sent) as { result?: { tools?: unknown[] } };
            for (const shown of message.result?.tools ?? []) expect(shown).toEqual(pinned);
          }
        }),
        fuzzParams("mcp-proxy-server-listings", 0.5),
      );
    } finally {
      guard.close();
    }
  }, FUZZ_TIMEOUT_MS);

  it("never shows the client a prompt listing entry that differs from its pin without counting it as the server's content", () => {
    const { guard, proxy, toClient } = proxyRig({ toolOutputTaints: { "mcp__srv__*": "untrusted" } }, { record: () => undefined });
    const pinned = { name: "brief", description: "plain" };
    proxy.fromClient(Buffer.from('{"jsonrpc":"2.0","id":0,"method":"prompts/list"}'));
    proxy.fromServer(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 0, result: { prompts: [pinned] } })));
    /** Equal to the pin in every field a prompt shows (name, title, description, arguments); others may differ. */
    const isPinned = (e: unknown) => {
      if (e === null || typeof e !== "object" || Array.isArray(e)) return false;
      const r = e as Record<string, unknown>;
      return r.name === "brief" && r.description === "plain" && !Object.hasOwn(r, "title") && !Object.hasOwn(r, "arguments");
    };
    const prompt = fc.oneof(
      fc.constant(pinned),
      fc.record(
        { name: fc.oneof(fc.constant("brief"), hostileName), description: fc.oneof(fc.constant("plain"), fc.string({ maxLength: 20 })), title: fc.string({ maxLength: 8 }), arguments: shallowValue, icons: shallowValue },
        { requiredKeys: [] },
      ),
      shallowValue,
    );
    const answer = fc.oneof(
      fc.array(prompt, { maxLength: 4 }).map((prompts) => JSON.stringify({ jsonrpc: "2.0", id: 1, result: { prompts } })),
      deepJsonText.map((deep) => `{"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"brief","description":"plain","arguments":${deep}}]}}`),
      fc.oneof(shallowValue, fc.string({ unit: "binary", maxLength: 60 })).map((t) => `{"jsonrpc":"2.0","id":1,"result":{"prompts":${JSON.stringify(t) ?? "null"}}}`),
    );
    try {
      fc.assert(
        fc.property(answer, (line) => {
          toClient.length = 0;
          guard.resetTrust("fuzz", "trusted", true);
          proxy.fromClient(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"prompts/list"}'));
          proxy.fromServer(Buffer.from(line, "utf8"));
          for (const sent of toClient) {
            const message = JSON.parse(sent) as { result?: { prompts?: unknown } };
            const shown = message.result?.prompts;
            if (shown === undefined) continue;
            expect(Array.isArray(shown)).toBe(true);
            if (!(shown as unknown[]).every(isPinned)) expect(guard.taint("fuzz")).toBe("untrusted");
          }
        }),
        fuzzParams("mcp-proxy-server-prompt-listings", 0.5),
      );
    } finally {
      guard.close();
    }
  }, FUZZ_TIMEOUT_MS);

  it("counts the answer to a request of any method it does not know to carry nothing for the model as the server's words", () => {
    const { guard, proxy, toClient } = proxyRig({ toolOutputTaints: { "mcp__srv__*": "untrusted" } }, { record: () => undefined });
    // The methods whose answers it reads itself (listings, instructions, calls, task states) or knows to carry nothing for the model.
    const known = new Set(["ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "subscriptions/listen", "completion/complete", "initialize", "server/discover", "tools/list", "tools/call", "prompts/list", "resources/list", "resources/templates/list", "tasks/get", "tasks/list", "tasks/cancel"]);
    const method = fc.oneof(fc.constantFrom("resources/read", "prompts/get", "tasks/result", "sampling/createMessage", "server/Discover", "ping ", "tools/list/x", "vendor/summary", "constructor"), hostileName).filter((m) => !known.has(m));
    const answer = fc.oneof(
      fc.constant({ result: { text: "SERVER" } }),
      fc.constant({ result: { contents: [{ uri: "x", text: "SERVER" }] } }),
      fc.constant({ error: { code: -32601, message: "SERVER" } }),
      fc.constant({ result: { resultType: "input_required", inputRequests: { a: { method: "elicitation/create", params: { message: "SERVER" } } } } }),
    );
    let id = 0;
    try {
      fc.assert(
        fc.property(method, answer, (m, body) => {
          toClient.length = 0;
          guard.resetTrust("fuzz", "trusted", true);
          id += 1;
          proxy.fromClient(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method: m, params: {} }), "utf8"));
          proxy.fromServer(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, ...body }), "utf8"));
          // A resource read or a prompt may ask the client's user (2026-07-28), as a tool call may: the question is not output.
          const asksTheUser = (m === "resources/read" || m === "prompts/get") && "result" in body && (body.result as { resultType?: unknown }).resultType === "input_required";
          if (toClient.some((l) => l.includes("SERVER")) && !asksTheUser) expect(guard.taint("fuzz")).toBe("untrusted");
        }),
        fuzzParams("mcp-proxy-unknown-methods", 0.5),
      );
    } finally {
      guard.close();
    }
  }, FUZZ_TIMEOUT_MS);

  it("shows the client a tool call's answer with the server's words uncounted only inside a question its user answers (input_required)", () => {
    const { guard, proxy, toClient } = proxyRig({ toolOutputTaints: { "mcp__srv__*": "untrusted" } }, { record: () => undefined });
    const userAnswers = new Set(["elicitation/create", "sampling/createMessage", "roots/list"]);
    const request = fc.record({ method: fc.oneof(fc.constantFrom(...userAnswers, "elicitation/create ", "vendor/show"), hostileName), params: fc.constant({ message: "QUESTION" }) });
    const result = fc.record(
      {
        resultType: fc.constantFrom("input_required", "complete", "INPUT_REQUIRED"),
        inputRequests: fc.oneof(fc.dictionary(hostileName, request, { maxKeys: 3 }), fc.array(request, { maxLength: 2 }), shallowValue),
        requestState: fc.oneof(fc.string(), shallowValue),
        content: fc.constant([{ type: "text", text: "SERVER" }]),
        extra: fc.constant("SERVER"),
      },
      { requiredKeys: ["resultType"] },
    );
    let id = 0;
    try {
      fc.assert(
        fc.property(result, (body) => {
          toClient.length = 0;
          guard.resetTrust("fuzz", "trusted", true);
          id += 1;
          proxy.fromClient(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "t", arguments: {} } }), "utf8"));
          proxy.fromServer(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, result: body }), "utf8"));
          const shown = toClient.join("\n");
          const requests = body.inputRequests !== null && typeof body.inputRequests === "object" ? Object.values(body.inputRequests as object) : [];
          const foreign = requests.some((r: unknown) => !userAnswers.has(String((r as { method?: unknown } | null)?.method)));
          if (shown.includes("SERVER") || (shown.includes("QUESTION") && (foreign || body.resultType !== "input_required"))) expect(guard.taint("fuzz")).toBe("untrusted");
        }),
        fuzzParams("mcp-proxy-input-required", 0.5),
      );
    } finally {
      guard.close();
    }
  }, FUZZ_TIMEOUT_MS);

  it("shows the client a notification or request of the server's own, of any method it does not know to carry nothing for the model, only counted as the server's words", () => {
    const { guard, proxy, toClient } = proxyRig({ toolOutputTaints: { "mcp__srv__*": "untrusted" } }, { record: () => undefined });
    // What the proxy knows the server may send without words for the model; of a task's status it counts the status message (unit-tested).
    const notifications = new Set(["notifications/tasks/status", "notifications/cancelled", "notifications/progress", "notifications/message", "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/resources/updated", "notifications/elicitation/complete", "notifications/subscriptions/acknowledged"]);
    const requests = new Set(["ping", "roots/list", "elicitation/create", "sampling/createMessage", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel"]);
    const method = fc.oneof(fc.constantFrom("notifications/claude/channel", "notifications/message ", "Notifications/progress", "notifications/tasks/status", "vendor/show", "constructor", "__proto__"), hostileName, ...[...notifications, ...requests].map((m) => fc.constant(m)));
    const params = fc.constantFrom({ content: "SERVER" }, { statusMessage: "SERVER", taskId: "t" }, { message: "SERVER", level: "info", data: "SERVER" });
    let id = 0;
    try {
      fc.assert(
        fc.property(method, params, fc.boolean(), (m, p, asRequest) => {
          toClient.length = 0;
          guard.resetTrust("fuzz", "trusted", true);
          id += 1;
          proxy.fromServer(Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...(asRequest ? { id: `s${id}` } : {}), method: m, params: p }), "utf8"));
          const plain = asRequest ? requests.has(m) : notifications.has(m);
          if (toClient.some((l) => l.includes("SERVER")) && !plain) expect(guard.taint("fuzz")).toBe("untrusted");
        }),
        fuzzParams("mcp-proxy-server-messages", 0.5),
      );
    } finally {
      guard.close();
    }
  }, FUZZ_TIMEOUT_MS);
});
