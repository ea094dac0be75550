import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { findDirectives } from "./model-server.js";

/**
 * A scripted Anthropic Messages API (streaming SSE, as Claude Code uses it) that plays the same
 * obedient victim as model-server.ts: a `CALL <tool> <json>` directive in the newest tool result
 * wins (the injection); otherwise the user's directives run in order, one per model call (with
 * none, those of the context the host sends as system-role messages); with nothing left to do
 * it answers in text quoting what it read since it last spoke.
 * Every request is kept, with the full tool definitions Claude Code offered.
 */
export interface AnthropicRequest {
  readonly tools: readonly ToolDefinition[];
  readonly lastText: string;
  readonly system: string;
  /** The text of every message, in order: what the model was given besides the system prompt. */
  readonly context: string;
}

export interface ToolDefinition {
  readonly name: string;
  readonly input_schema?: { readonly properties?: Readonly<Record<string, unknown>>; readonly required?: readonly string[] };
}

export interface AnthropicServer {
  /** For ANTHROPIC_BASE_URL (no /v1: the client adds it). */
  readonly url: string;
  readonly pageUrl: string;
  readonly pages: Map<string, string>;
  readonly hits: string[];
  readonly requests: AnthropicRequest[];
  close(): Promise<void>;
}

interface Block {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly content?: unknown;
  readonly name?: unknown;
}

interface Message {
  readonly role?: unknown;
  readonly content?: unknown;
}

function blocks(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter((b): b is Block => b !== null && typeof b === "object") : [];
}

function blockText(block: Block): string {
  if (typeof block.text === "string") return block.text;
  if (typeof block.content === "string") return block.content;
  if (Array.isArray(block.content)) return blocks(block.content).map(blockText).join("\n");
  return "";
}

/**
 * What the victim reads in a block of the user's message: its text, and the text an image or a
 * document shows (here, what its bytes spell, as a PNG's text chunk: a stand-in for vision).
 */
function shownText(block: Block): string {
  if (block.type === "text") return blockText(block);
  if (block.type !== "image" && block.type !== "document") return "";
  const data = (block as { source?: { data?: unknown } }).source?.data;
  return typeof data === "string" ? Buffer.from(data, "base64").toString("latin1") : "";
}

const toolResults = (m: Message): Block[] => blocks(m.content).filter((b) => b.type === "tool_result");
const toolUses = (m: Message): Block[] => blocks(m.content).filter((b) => b.type === "tool_use");

interface Directive {
  readonly tool: string;
  readonly args: string;
}

/** The victim's next move (see the module comment). */
function nextDirective(messages: readonly Message[]): Directive | null {
  // Tool results (and any context a hook added) since the model's last message.
  let lastAssistant = -1;
  messages.forEach((m, i) => {
    if (m.role === "assistant") lastAssistant = i;
  });
  for (const m of messages.slice(lastAssistant + 1)) {
    for (const result of toolResults(m)) {
      const injected = findDirectives(blockText(result))[0];
      if (injected !== undefined) return injected;
    }
  }
  // The current turn starts at the last user message that is not only tool results.
  let userIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m === undefined) continue;
    if (m.role === "assistant" && toolUses(m).length === 0) break;
    if (m.role === "user" && blocks(m.content).some((b) => findDirectives(shownText(b)).length > 0)) {
      userIndex = i;
      break;
    }
  }
  // With nothing asked in the user's words, the context the host added in messages of the system
  // role is read as a model reads its system prompt: as instructions (a hook's added context is
  // sent there).
  if (userIndex < 0) userIndex = lastSystemWithDirectives(messages);
  if (userIndex < 0) return null;
  const wanted = blocks(messages[userIndex]?.content).flatMap((b) => findDirectives(shownText(b)));
  const made = messages.slice(userIndex + 1).flatMap((m) => (m.role === "assistant" ? toolUses(m) : []));
  let next = 0;
  for (const call of made) if (wanted[next] !== undefined && call.name === wanted[next]?.tool) next += 1;
  return wanted[next] ?? null;
}

/** The last message of the system role since the model last answered in text that holds a directive; -1 for none. */
function lastSystemWithDirectives(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m === undefined) continue;
    if (m.role === "assistant" && toolUses(m).length === 0) return -1;
    if (m.role === "system" && blocks(m.content).some((b) => findDirectives(blockText(b)).length > 0)) return i;
  }
  return -1;
}

function sse(res: ServerResponse, event: string, data: Record<string, unknown>): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
}

function respond(body: Record<string, unknown>, res: ServerResponse, log: AnthropicRequest[], counter: { n: number }): void {
  const messages = Array.isArray(body.messages) ? (body.messages as Message[]) : [];
  const tools = Array.isArray(body.tools) ? (body.tools as ToolDefinition[]).filter((t) => typeof t?.name === "string") : [];
  const last = messages.at(-1);
  const lastText = last === undefined ? "" : blocks(last.content).map(blockText).join("\n");
  const system = Array.isArray(body.system) ? blocks(body.system).map(blockText).join("\n") : typeof body.system === "string" ? body.system : "";
  const context = messages.map((m) => blocks(m.content).map(blockText).join("\n")).join("\n");
  log.push({ tools, lastText, system, context });
  const offered = new Set(tools.map((t) => t.name));
  const directive = tools.length > 0 ? nextDirective(messages) : null;
  const call = directive !== null && offered.has(directive.tool) ? directive : null;
  const id = `msg_${++counter.n}`;
  const model = typeof body.model === "string" ? body.model : "victim";
  const usage = { input_tokens: 10, output_tokens: 10 };
  // What it read since it last spoke: a tool result and the context a hook added after it.
  const sinceLastAnswer = messages.slice(messages.findLastIndex((m) => m.role === "assistant") + 1);
  const read = sinceLastAnswer.map((m) => blocks(m.content).map(blockText).join("\n")).join("\n");
  const text = call === null ? `VICTIM-REPLY: ${read.slice(0, 4000)}` : "";
  if (body.stream !== true) {
    const content = call === null ? [{ type: "text", text }] : [{ type: "tool_use", id: `toolu_${counter.n}`, name: call.tool, input: JSON.parse(call.args) as unknown }];
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id, type: "message", role: "assistant", model, content, stop_reason: call === null ? "end_turn" : "tool_use", stop_sequence: null, usage }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  sse(res, "message_start", { message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } });
  if (call === null) {
    sse(res, "content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    sse(res, "content_block_delta", { index: 0, delta: { type: "text_delta", text } });
  } else {
    sse(res, "content_block_start", { index: 0, content_block: { type: "tool_use", id: `toolu_${counter.n}`, name: call.tool, input: {} } });
    sse(res, "content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: call.args } });
  }
  sse(res, "content_block_stop", { index: 0 });
  sse(res, "message_delta", { delta: { stop_reason: call === null ? "end_turn" : "tool_use", stop_sequence: null }, usage });
  sse(res, "message_stop", {});
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startAnthropicServer(): Promise<AnthropicServer> {
  const requests: AnthropicRequest[] = [];
  const pages = new Map<string, string>();
  const hits: string[] = [];
  const counter = { n: 0 };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? "").split("?")[0] ?? "";
      if (path.startsWith("/pages/")) {
        const name = decodeURIComponent(path.slice("/pages/".length));
        hits.push(name);
        const page = pages.get(name);
        res.writeHead(page === undefined ? 404 : 200, { "content-type": "text/plain; charset=utf-8" });
        res.end(page ?? "not found");
        return;
      }
      if (req.method === "POST" && path === "/v1/messages/count_tokens") {
        await readBody(req);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      if (req.method !== "POST" || path !== "/v1/messages") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not found" } }));
        return;
      }
      try {
        const parsed: unknown = JSON.parse(await readBody(req));
        if (parsed === null || typeof parsed !== "object") throw new Error("body is not an object");
        respond(parsed as Record<string, unknown>, res, requests, counter);
      } catch (error) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: String(error) } }));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pageUrl: `http://127.0.0.1:${port}/pages`,
    pages,
    hits,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
