import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HttpUpstream } from "../../../src/adapters/mcp/http-upstream.js";

interface Seen {
  readonly method: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** A real HTTP server on loopback that answers each request with `answer`, and keeps what it saw. */
async function serve(answer: (seen: Seen, res: ServerResponse) => void): Promise<{ url: URL; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const s = { method: req.method ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      seen.push(s);
      answer(s, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), seen };
}

function upstream(url: URL, max = 1 << 20) {
  const lines: string[] = [];
  const oversize: number[] = [];
  const log: string[] = [];
  const up = new HttpUpstream({
    server: "remote",
    url,
    headers: { Authorization: "Bearer k3y" },
    logger: { info: (m) => log.push(m), warn: (m) => log.push(m), error: (m) => log.push(m) },
    maxMessageBytes: max,
    deliver: (line) => lines.push(line.toString("utf8")),
    oversize: (bytes) => oversize.push(bytes),
    ready: () => Promise.resolve(),
  });
  return { up, lines, oversize, log };
}

const request = (id: number, method = "tools/list") => JSON.stringify({ jsonrpc: "2.0", id, method });
const NOT_ANSWERED = /"error":\{"code":-32603,"message":"provenant mcp: the remote MCP server did not answer \(see the proxy's log\)"\}/;

describe("the Streamable HTTP upstream", () => {
  it("sends the headers, takes the session and the negotiated revision from initialize, and sends both after it", async () => {
    const { url, seen } = await serve((s, res) => {
      if (s.method === "DELETE") return void res.writeHead(200).end();
      const body = JSON.parse(s.body) as { id?: number; method: string };
      if (body.id === undefined) return void res.writeHead(202).end();
      const result = body.method === "initialize" ? { protocolVersion: "2025-06-18", capabilities: {} } : body.method === "x/revision" ? { protocolVersion: "2099-01-01" } : { tools: [] };
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "sess-1" }).end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result }));
    });
    const { up, lines } = upstream(url);
    up.send(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }));
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    up.send(request(1));
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    // A revision in any answer but initialize's changes nothing.
    up.send(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "x/revision" }));
    await vi.waitFor(() => expect(lines).toHaveLength(3));
    up.send(request(1));
    await vi.waitFor(() => expect(lines).toHaveLength(4));
    expect(seen[3]?.headers["mcp-protocol-version"]).toBe("2025-06-18");
    expect(seen[0]?.headers["content-type"]).toBe("application/json");
    expect(seen[0]?.headers.authorization).toBe("Bearer k3y");
    expect(seen[0]?.headers.accept).toBe("application/json, text/event-stream");
    expect(seen[0]?.headers["mcp-session-id"]).toBeUndefined();
    expect(seen[1]?.headers["mcp-session-id"]).toBe("sess-1");
    expect(seen[1]?.headers["mcp-protocol-version"]).toBe("2025-06-18");
    await up.close();
    expect(seen.at(-1)?.method).toBe("DELETE");
    expect(seen.at(-1)?.headers["mcp-session-id"]).toBe("sess-1");
    // Closed: nothing more is sent, and a second close sends nothing either.
    up.send(request(2));
    await up.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen.filter((s) => s.method === "POST")).toHaveLength(4);
    expect(seen.filter((s) => s.method === "DELETE")).toHaveLength(1);
  });

  it("ends no session it was never given, and a request in flight when the client leaves gets no answer", async () => {
    const { url, seen } = await serve(() => undefined);
    const { up, lines } = upstream(url);
    up.send(request(1));
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    await up.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.map((s) => s.method)).toEqual(["POST"]);
    expect(lines).toEqual([]);
  });

  it("posts what it cannot read as it is, and asks nothing of it; a batch's requests each get their error", async () => {
    const { url, seen } = await serve((_s, res) => res.writeHead(500).end());
    const { up, lines } = upstream(url);
    up.send("not json");
    up.send(JSON.stringify([1, null, { jsonrpc: "2.0", id: 5, method: "tools/list" }, { jsonrpc: "2.0", method: "notifications/x" }, { jsonrpc: "2.0", id: 6, method: "tools/list" }]));
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines.map((l) => (JSON.parse(l) as { id: unknown }).id)).toEqual([5, 6]);
    expect(seen.map((s) => s.body)).toContain("not json");
  });

  it("opens the stream again when it ends, and not after the server refuses it; not at all when initialized was refused; a 404 of a session says so", async () => {
    let gets = 0;
    const ending = await serve((s, res) => {
      if (s.method === "POST") return void res.writeHead(202, { "mcp-session-id": "s-1" }).end();
      gets += 1;
      if (gets === 1) return void res.writeHead(200, { "content-type": "text/event-stream" }).end();
      res.writeHead(404, { "content-type": "text/plain" }).end("gone");
    });
    const a = upstream(ending.url);
    const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
    a.up.send(initialized);
    // A second initialized opens no second stream while one is open.
    a.up.send(initialized);
    await vi.waitFor(() => expect(gets).toBe(2), { timeout: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(gets).toBe(2);
    expect(a.log.join("\n")).toContain('answered GET with HTTP 404: "gone"');
    expect(a.log.join("\n")).toContain("the server ended the session; restart the client to begin a new one");
    await a.up.close();
    const refused = await serve((s, res) => res.writeHead(s.method === "POST" ? 500 : 200).end());
    const b = upstream(refused.url);
    b.up.send(initialized);
    await vi.waitFor(() => expect(b.log.join("\n")).toContain("answered POST with HTTP 500"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(refused.seen.map((s) => s.method)).toEqual(["POST"]);
    // A body that says it is not JSON is read as JSON all the same, and the log says so.
    const untyped = await serve((_s, res) => res.writeHead(200, { "content-type": "text/plain" }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
    const c = upstream(untyped.url);
    c.up.send(request(1));
    await vi.waitFor(() => expect(c.lines).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}']));
    expect(c.log.join("\n")).toContain("answered with text/plain; read as JSON");
  });

  it("opens the stream of what the server sends unasked once the session is initialised, and not again after a 405", async () => {
    const notifying = await serve((s, res) => {
      if (s.method === "POST") return void res.writeHead(202).end();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n`);
    });
    const a = upstream(notifying.url);
    a.up.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    await vi.waitFor(() => expect(a.lines).toEqual(['{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}']));
    expect(notifying.seen.map((s) => `${s.method} ${String(s.headers.accept)}`)).toEqual(["POST application/json, text/event-stream", "GET text/event-stream"]);
    await a.up.close();
    const refusing = await serve((s, res) => res.writeHead(s.method === "POST" ? 202 : 405).end());
    const b = upstream(refusing.url);
    b.up.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    await vi.waitFor(() => expect(refusing.seen.map((s) => s.method)).toEqual(["POST", "GET"]));
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(refusing.seen.map((s) => s.method)).toEqual(["POST", "GET"]);
    expect(b.log).toEqual([]);
  });

  it("delivers every message of an event stream in order, a server's own request before the answer, each as one line", async () => {
    const { url } = await serve((_s, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`event: message\ndata: {"jsonrpc":"2.0","id":"s1","method":"elicitation/create",\ndata: "params":{}}\n\n`);
      res.write(": keep-alive\n\nevent: other\ndata: ignored\n\n");
      res.end(`data: {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n\n`);
    });
    const { up, lines } = upstream(url);
    up.send(request(1));
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      { jsonrpc: "2.0", id: "s1", method: "elicitation/create", params: {} },
      { jsonrpc: "2.0", id: 1, result: { tools: [] } },
    ]);
    expect(lines.every((l) => !l.includes("\n"))).toBe(true);
  });

  it("answers a request with an error when the stream ends first, the server refuses it, or cannot be reached; a notification gets nothing", async () => {
    const { url } = await serve((s, res) => {
      const body = JSON.parse(s.body) as { id?: number };
      if (body.id === undefined) return void res.writeHead(202).end();
      if (body.id === 1) return void res.writeHead(200, { "content-type": "text/event-stream" }).end(": nothing\n\n");
      res.writeHead(500, { "content-type": "text/plain" }).end("stack trace with secrets\n\u001b[31m");
    });
    const { up, lines, log } = upstream(url);
    up.send(request(1));
    up.send(request(2));
    up.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: {} }));
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    // The notification's accepted, answerless 202 brings nothing.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(NOT_ANSWERED);
    expect(lines.map((l) => (JSON.parse(l) as { id: number }).id).sort()).toEqual([1, 2]);
    // The server's words go to the log, escaped; not to the client.
    expect(log.join("\n")).toContain('answered POST with HTTP 500: "stack trace with secrets\\n\\u001b[31m"');
    const gone = upstream(new URL("http://127.0.0.1:1/mcp"));
    gone.up.send(request(7));
    await vi.waitFor(() => expect(gone.lines).toHaveLength(1));
    expect(gone.lines[0]).toMatch(/"id":7,/);
    expect(gone.log.join("\n")).toMatch(/could not be reached/);
  });

  it("does not follow a redirect: the headers never reach the other server", async () => {
    const other = await serve((_s, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
    const { url } = await serve((_s, res) => res.writeHead(307, { location: other.url.href }).end());
    const { up, lines, log } = upstream(url);
    up.send(request(1));
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toMatch(NOT_ANSWERED);
    expect(other.seen).toEqual([]);
    expect(log.join("\n")).toContain(`answered POST with HTTP 307 to ${other.url.href} (not followed: the headers would go with it)`);
    expect(log.join("\n")).not.toContain("ended the session");
  });

  it("an empty answer to a request is no message: the request gets its error and nothing else reaches the proxy", async () => {
    const { url } = await serve((_s, res) => res.writeHead(200, { "content-type": "application/json" }).end());
    const { up, lines } = upstream(url);
    up.send(request(3));
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(NOT_ANSWERED);
  });

  it("takes an answer of exactly the limit whole; logs at most 500 characters of a refusal", async () => {
    const answer = (id: number, pad: number) => JSON.stringify({ jsonrpc: "2.0", id, result: { text: "x".repeat(pad) } });
    const exact = 200;
    const pad = exact - answer(1, 0).length;
    const { url } = await serve((s, res) => {
      const body = JSON.parse(s.body) as { id: number };
      if (body.id === 1) return void res.writeHead(200, { "content-type": "application/json" }).end(answer(1, pad));
      res.writeHead(503, { "content-type": "text/plain" }).end("y".repeat(2_000));
    });
    const { up, lines, oversize, log } = upstream(url, exact);
    up.send(request(1));
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toBe(answer(1, pad));
    expect(oversize).toEqual([]);
    up.send(request(2));
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    expect(log.join("\n")).toContain(`answered POST with HTTP 503: "${"y".repeat(500)}"`);
  });

  it("drops a body over the limit (reported by size) and a session id that is not visible ASCII is never sent back", async () => {
    const { url, seen } = await serve((s, res) => {
      const body = JSON.parse(s.body) as { id: number };
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "bad\tid" }).end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { text: "x".repeat(body.id === 1 ? 500 : 1) } }));
    });
    const { up, lines, oversize, log } = upstream(url, 200);
    up.send(request(1));
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(oversize).toHaveLength(1);
    expect(oversize[0]).toBeGreaterThan(200);
    expect(lines[0]).toMatch(NOT_ANSWERED);
    up.send(request(2));
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    expect(seen[1]?.headers["mcp-session-id"]).toBeUndefined();
    expect(log.join("\n")).toMatch(/session id that is not visible ASCII/);
  });
});
