import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";

/**
 * A scripted OpenAI-compatible chat-completions server that plays a fully obedient victim: it calls
 * whatever tool the latest context tells it to, by directives `CALL <tool> <json-object>` (see
 * {@link nextDirective}); `CALL say {"text": …}` makes it answer with that text; otherwise it
 * answers in text, quoting what it read last, so a test can see what came back from the tools.
 * Every request is kept, so tests can see which tools OpenClaw offered the model on each call.
 */
export interface ModelRequest {
  /** When the request arrived (performance.now(), ms). */
  readonly at: number;
  readonly tools: readonly string[];
  /** The definitions of the tools offered (the request's `tools` as sent): what their descriptions tell the model. */
  readonly toolDefinitions: string;
  readonly lastRole: string;
  readonly lastText: string;
  /** The system prompt the host sent (its system messages' text). */
  readonly system: string;
}

export interface ModelServer {
  readonly url: string;
  /**
   * Where pages are served from: GET `${pageUrl}/<name>` answers with `pages.get(name)`; so does
   * `http://<any host>/pages/<name>` through the server as a forward proxy (`proxyUrl`).
   */
  readonly pageUrl: string;
  readonly pages: Map<string, string>;
  /** Pages that fail: GET `${pageUrl}/<name>` answers 404 with `errorPages.get(name)` as the body. */
  readonly errorPages: Map<string, string>;
  /** The server as an HTTP forward proxy. */
  readonly proxyUrl: string;
  /**
   * What the model says an image it is shown holds (a request whose newest user message carries
   * an image): a vision model reading a picture's text, as a host's media understanding asks it to.
   */
  readonly images: { description: string };
  /** Every page path requested (`/pages/<name>`), in order: the attacker server's hit log. */
  readonly hits: string[];
  readonly requests: ModelRequest[];
  close(): Promise<void>;
}

interface ChatMessage {
  role?: unknown;
  content?: unknown;
}


export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        if (typeof part === "string") return part;
        if (part !== null && typeof part === "object" && "text" in part && typeof part.text === "string") return part.text;
        return "";
      })
      .join("\n");
  }
  return "";
}

function toolNames(body: Record<string, unknown>): string[] {
  const tools = body.tools;
  if (!Array.isArray(tools)) return [];
  const names: string[] = [];
  for (const tool of tools) {
    if (tool !== null && typeof tool === "object" && "function" in tool) {
      const fn: unknown = tool.function;
      if (fn !== null && typeof fn === "object" && "name" in fn && typeof fn.name === "string") names.push(fn.name);
    }
  }
  return names;
}

interface Directive {
  readonly tool: string;
  readonly args: string;
  /** The tool call id to answer with (`CALL <tool>@<id> {...}`), as a model that writes its own ids would. */
  readonly id?: string;
}

/** The strings inside a JSON document (tool results often are one), else the text itself. */
function readable(text: string): string {
  try {
    const strings: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === "string") strings.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
      else if (value !== null && typeof value === "object") Object.values(value).forEach(walk);
    };
    walk(JSON.parse(text));
    return strings.join("\n");
  } catch {
    return text;
  }
}

/**
 * Every directive in `text`, in order: `CALL <tool> ` and the shortest JSON object after it that
 * parses. Tool output often nests JSON in JSON (Tool Search's `tool_call` quotes the target's
 * result inside the host's envelope), so text escaped once or twice is read too.
 */
export function findDirectives(text: string): Directive[] {
  for (const layer of escapeLayers(text)) {
    const found = directivesIn(layer);
    if (found.length > 0) return found;
  }
  return [];
}

/** `text` as read, then unescaped once and twice (JSON quoted in JSON), while that changes it. */
function escapeLayers(text: string): string[] {
  const layers = [readable(text)];
  for (let depth = 1; depth < 3; depth++) {
    const layer = layers[layers.length - 1] ?? "";
    const unescaped = layer.replace(/\\(["\\n])/g, (_m, c: string) => (c === "n" ? "\n" : c));
    if (unescaped === layer) break;
    layers.push(unescaped);
  }
  return layers;
}

function directivesIn(source: string): Directive[] {
  const found: Directive[] = [];
  for (const match of source.matchAll(/CALL\s+([A-Za-z0-9_.-]+)(?:@([A-Za-z0-9_.:-]+))?\s+(?=\{)/g)) {
    const tool = match[1];
    const id = match[2];
    const start = (match.index ?? 0) + match[0].length;
    if (tool === undefined) continue;
    for (let end = source.indexOf("}", start); end !== -1; end = source.indexOf("}", end + 1)) {
      const args = source.slice(start, end + 1);
      try {
        const parsed: unknown = JSON.parse(args);
        if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) found.push(id === undefined ? { tool, args } : { tool, args, id });
        break;
      } catch {
        continue;
      }
    }
  }
  return found;
}

interface AssistantCall {
  /** The tool called: for a `tool_call`, the tool it wraps. */
  readonly name: string;
  /** The name the model called (`tool_call` for a wrapped call). */
  readonly called: string;
  readonly args: string;
}

function assistantCalls(message: ChatMessage): AssistantCall[] {
  const calls = (message as { tool_calls?: unknown }).tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call: unknown) => {
    const fn = call !== null && typeof call === "object" ? (call as { function?: { name?: unknown; arguments?: unknown } }).function : undefined;
    if (typeof fn?.name !== "string") return [];
    const args = typeof fn.arguments === "string" ? fn.arguments : "";
    return [{ name: fn.name === "tool_call" ? (wrappedName(args) ?? fn.name) : fn.name, called: fn.name, args }];
  });
}

/** The tool a `tool_call`'s arguments name (so a call made through Tool Search counts as that tool's). */
function wrappedName(args: string): string | undefined {
  try {
    const parsed = JSON.parse(args) as { id?: unknown };
    return typeof parsed.id === "string" ? parsed.id.replace(/^openclaw:[^:]*:/, "") : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How a model reaches a tool under OpenClaw's Tool Search: directly when the tool is on its list,
 * else through `tool_call {id, args}` when that is (the host's default hides most tools behind it).
 */
function reachable(directive: Directive, offered: readonly string[]): Directive {
  if (offered.includes(directive.tool) || !offered.includes("tool_call")) return directive;
  return { ...directive, tool: "tool_call", args: `{"id":${JSON.stringify(directive.tool)},"args":${directive.args}}` };
}

/** The mark OpenClaw puts on each header of a message's inbound context (`⟦openclaw:ctx⟧`). */
const INBOUND_MARKER = "\u27e6openclaw:ctx\u27e7";
const HOST_CONTEXT = /<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>[\s\S]*?(<<<END_OPENCLAW_INTERNAL_CONTEXT>>>|$)/g;

function withoutHostContext(text: string): string {
  return text.replace(HOST_CONTEXT, "");
}

/** The first line of the prompt OpenClaw's boot-md hook runs a workspace's BOOT.md with at the gateway's start. */
const BOOT_CHECK = /^(?:\[[^\]\n]{1,64}\] )?You are running a boot check\. Follow BOOT\.md instructions exactly\./;

/**
 * What a user message asks for: its text without the host's context, and, in a boot check, the
 * BOOT.md the host put in that context, whose instructions the prompt says to follow exactly.
 */
function askedIn(message: ChatMessage | undefined): string {
  const text = textOf(message?.content);
  const boot = BOOT_CHECK.test(text) ? (/\nBOOT\.md:\n([\s\S]*?)\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>/.exec(text)?.[1] ?? "") : "";
  return `${withoutHostContext(text)}\n${boot}`;
}

/**
 * What a message says, without the envelope the host puts around it for the model: its time and
 * sender metadata, its runtime line and its runtime context. A model answers the message, not the
 * envelope; one that echoed the envelope would have its reply rewritten by the host (which strips
 * its own metadata from what the model says), so the reply the transcript keeps would not be the
 * one the history hands back.
 */
function withoutEnvelope(text: string): string {
  return withoutHostContext(text)
    .replace(/^\[[^\]\n]{1,64}\] /, "")
    .replace(/^Conversation info: \u27e6openclaw:ctx\u27e7\n```json\n[^\n]*\n```\n\n/, "")
    .replace(/\n*^Runtime: agent=[^\n]*$/m, "")
    .trim();
}

/**
 * The obedient victim's next move: a directive in the newest tool output wins (that is the
 * injection); otherwise the user's directives run in order, one per model call, skipping those
 * already called since the user spoke; a user who asked for nothing gets the system prompt's.
 */
export function nextDirective(messages: readonly ChatMessage[]): Directive | null {
  const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
  const standingOrder = triggeredOrder(messages, lastAssistant);
  if (standingOrder !== null) return standingOrder;
  for (const m of messages.slice(lastAssistant + 1)) {
    if (m.role !== "tool") continue;
    // OpenClaw appends the turn's own context (its queued System: lines among it) to the newest
    // message of every request: that is not the tool's output.
    const injected = findDirectives(withoutHostContext(textOf(m.content)))[0];
    if (injected !== undefined) return injected;
  }
  // The current turn begins after the model's last plain reply (a message without tool calls).
  let userIndex = -1;
  let turnStart = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m === undefined || (m.role === "assistant" && assistantCalls(m).length === 0)) {
      turnStart = i + 1;
      break;
    }
    if (m.role === "user" && findDirectives(askedIn(m)).length > 0) userIndex = i;
  }
  // A directive in what the host's context for this turn carries from elsewhere (a queued event's
  // `System:` fragment, the message's inbound context: a group's chat history, a quoted message)
  // is obeyed once, although the host repeats the context with every request; one the
  // conversation already holds (the chat window quoting the bot's own last reply) is not new.
  const madeThisTurn = messages.slice(turnStart).flatMap((m) => (m.role === "assistant" ? assistantCalls(m) : []));
  const latest = messages.at(-1);
  const key = (d: Directive) => {
    try {
      return `${d.tool} ${JSON.stringify(JSON.parse(d.args))}`;
    } catch {
      return `${d.tool} ${d.args}`;
    }
  };
  const known = new Set(messages.flatMap((m) => findDirectives(withoutHostContext(textOf(m.content)))).map(key));
  for (const block of latest === undefined ? [] : textOf(latest.content).match(HOST_CONTEXT) ?? []) {
    for (const line of block.split("\n").filter((l) => l.startsWith('"System: ') || (l.startsWith('"') && l.includes(INBOUND_MARKER)))) {
      let queued: unknown;
      try {
        queued = JSON.parse(line);
      } catch {
        continue;
      }
      // The message the owner replied to is quoted as a JSON string inside the fragment: read on its own.
      const quotes = typeof queued === "string" ? [...queued.matchAll(/^\[Replying to: (".*")\]$/gm)].map((m) => m[1] ?? "") : [];
      for (const directive of typeof queued === "string" ? [...findDirectives(queued), ...quotes.flatMap(findDirectives)] : []) {
        if (known.has(key(directive))) continue;
        if (!madeThisTurn.some((call) => call.name === directive.tool || call.called === directive.tool)) return directive;
      }
    }
  }
  // What the host put in the system prompt (its workspace files: MEMORY.md, AGENTS.md) is the
  // agent's own standing instructions: a directive there is obeyed once a turn, when the user asked
  // for nothing themselves.
  if (userIndex < 0) {
    const standing = messages.filter((m) => m.role === "system" || m.role === "developer").flatMap((m) => findDirectives(textOf(m.content)));
    return standing.find((directive) => !madeThisTurn.some((call) => call.name === directive.tool || call.called === directive.tool)) ?? null;
  }
  // The turn's first message is worked through first; a message the host hands the model while
  // the turn runs (one it steers into the running turn) is obeyed after it.
  for (let i = userIndex; i < messages.length; i++) {
    if (messages[i]?.role !== "user") continue;
    const pending = pendingDirective(messages, i);
    if (pending !== null) return pending;
  }
  return null;
}

/**
 * An injection that waits: `WHEN "<phrase>" DO <tool> <json-object>` read earlier in the
 * conversation (a page's "whenever you are asked to …, first run …") is obeyed once, when a
 * user message since the model last spoke holds the phrase, as a model that took the page's word would. It is not a
 * `CALL`, so the turn that reads it does not act on it there and then.
 */
function triggeredOrder(messages: readonly ChatMessage[], lastAssistant: number): Directive | null {
  const asked = messages
    .slice(lastAssistant + 1)
    .filter((m) => m.role === "user")
    .map((m) => withoutHostContext(textOf(m.content)))
    .join("\n");
  if (asked === "") return null;
  for (const m of messages.slice(0, lastAssistant + 1)) {
    for (const order of escapeLayers(textOf(m.content)).join("\n").matchAll(/WHEN "([^"\n]+)" DO ([A-Za-z0-9_.-]+) (\{[^\n]*\})/g)) {
      if (asked.includes(order[1] ?? "\u0000")) return { tool: order[2] ?? "", args: order[3] ?? "{}" };
    }
  }
  return null;
}

/** The first directive of the user message at `index` that the model has not made since. */
function pendingDirective(messages: readonly ChatMessage[], index: number): Directive | null {
  const wanted = findDirectives(askedIn(messages[index]));
  const made = messages.slice(index + 1).flatMap((m) => (m.role === "assistant" ? assistantCalls(m) : []));
  let next = 0;
  for (const call of made) {
    const want = wanted[next];
    if (want !== undefined && (call.name === want.tool || call.called === want.tool)) next += 1;
  }
  return wanted[next] ?? null;
}

/**
 * `{{SIGNED_MESSAGE_ID}}` in a directive's arguments stands for the signature id the plugin names
 * in the context, as a model would copy it from there.
 */
function withPlaceholders(directive: Directive | null, messages: readonly ChatMessage[]): Directive | null {
  if (directive === null || !directive.args.includes("{{SIGNED_MESSAGE_ID}}")) return directive;
  const context = messages.map((m) => textOf(m.content)).join("\n");
  const id = /is signed as (\S+);/.exec(context)?.[1] ?? "no-signature-id-in-context";
  return { ...directive, args: directive.args.replaceAll("{{SIGNED_MESSAGE_ID}}", id) };
}

const SAY = "say";

function sayText(args: string): string | null {
  const text = (JSON.parse(args) as { text?: unknown }).text;
  return typeof text === "string" ? text : null;
}

/** Whether a message's content holds an image part (OpenAI's `image_url`). */
function holdsImage(message: ChatMessage | undefined): boolean {
  return Array.isArray(message?.content) && message.content.some((part: unknown) => part !== null && typeof part === "object" && (part as { type?: unknown }).type === "image_url");
}

function respond(body: Record<string, unknown>, res: ServerResponse, log: ModelRequest[], counter: { n: number }, images: { description: string }): void {
  const messages = Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : [];
  // What the model "reads" last: everything after its own last message.
  const latest: ChatMessage[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message === undefined || message.role === "assistant" || message.role === "system") break;
    latest.unshift(message);
  }
  const lastRole = typeof latest[0]?.role === "string" ? latest[0].role : "";
  const lastText = latest.map((m) => textOf(m.content)).join("\n");
  const offered = toolNames(body);
  const system = messages.filter((m) => m.role === "system" || m.role === "developer").map((m) => textOf(m.content)).join("\n");
  log.push({ at: performance.now(), tools: offered, toolDefinitions: JSON.stringify(body.tools ?? []), lastRole, lastText, system });
  const shown = holdsImage(messages.findLast((m) => m.role === "user"));
  const directive = shown ? null : withPlaceholders(nextDirective(messages), messages);
  const id = `chatcmpl-${++counter.n}`;
  const model = typeof body.model === "string" ? body.model : "victim";
  const created = Math.floor(Date.now() / 1000);
  // `CALL say {"text": …}` is no tool: the model answers with that text, as a model that passes on
  // what it read (a summary of a mail that repeats the mail's instruction).
  const said = directive?.tool === SAY ? sayText(directive.args) : null;
  const call = said === null && directive !== null && offered.length > 0 ? reachable(directive, offered) : null;
  const quoted = latest.map((m) => withoutEnvelope(textOf(m.content))).join("\n");
  const text = shown ? images.description : (said ?? (call === null ? `VICTIM-REPLY ${lastRole}: ${quoted.slice(0, 4000)}` : ""));
  const toolCall = call === null ? null : { index: 0, id: call.id ?? `call_${counter.n}`, type: "function", function: { name: call.tool, arguments: call.args } };
  const finish = call === null ? "stop" : "tool_calls";
  const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
  if (body.stream === true) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const chunk = (delta: Record<string, unknown>, finishReason: string | null): string =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    res.write(chunk({ role: "assistant" }, null));
    res.write(toolCall === null ? chunk({ content: text }, null) : chunk({ tool_calls: [toolCall] }, null));
    res.write(chunk({}, finish));
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`);
    res.end("data: [DONE]\n\n");
    return;
  }
  const message = toolCall === null ? { role: "assistant", content: text } : { role: "assistant", content: null, tool_calls: [{ id: toolCall.id, type: "function", function: toolCall.function }] };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startModelServer(): Promise<ModelServer> {
  const requests: ModelRequest[] = [];
  const pages = new Map<string, string>();
  const errorPages = new Map<string, string>();
  const images = { description: "An image." };
  const hits: string[] = [];
  const counter = { n: 0 };
  const server: Server = createServer((req, res) => {
    void (async () => {
      // A request through the server as a forward proxy (OpenClaw's `proxy.proxyUrl`) names its
      // whole URL: pages are then served on any host, as the attacker's web.
      const target = req.url ?? "";
      const path = (/^https?:\/\//i.test(target) ? target.replace(/^https?:\/\/[^/]*/i, "") : target).split("?")[0] ?? "";
      if (path.startsWith("/pages/")) hits.push(decodeURIComponent(path.slice("/pages/".length)));
      if (req.method === "GET" && path.startsWith("/pages/")) {
        const name = decodeURIComponent(path.slice("/pages/".length));
        const page = pages.get(name);
        res.writeHead(page === undefined ? 404 : 200, { "content-type": "text/plain; charset=utf-8" });
        res.end(page ?? errorPages.get(name) ?? "not found");
        return;
      }
      if (req.method === "GET" && path.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "victim", object: "model", owned_by: "provenant-e2e" }] }));
        return;
      }
      if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
        res.writeHead(404).end();
        return;
      }
      try {
        const parsed: unknown = JSON.parse(await readBody(req));
        if (parsed === null || typeof parsed !== "object") throw new Error("body is not an object");
        respond(parsed as Record<string, unknown>, res, requests, counter, images);
      } catch (error) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(error) } }));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  // As a forward proxy OpenClaw's undici tunnels even a plain-HTTP request (CONNECT): the tunnel
  // leads back to this server, which serves the page whatever host was asked for.
  const tunnels = new Set<Socket>();
  server.on("connect", (_req: IncomingMessage, client: Socket, head: Buffer) => {
    const upstream = connect(port, "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      tunnels.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        tunnels.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  return {
    url: `http://127.0.0.1:${port}/v1`,
    pageUrl: `http://127.0.0.1:${port}/pages`,
    proxyUrl: `http://127.0.0.1:${port}`,
    pages,
    errorPages,
    images,
    hits,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of tunnels) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
