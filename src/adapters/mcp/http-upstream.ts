import type { Logger } from "../../core/logger.js";
import { isRecord } from "../../core/json-record.js";
import { EventStreamParser, type StreamEvent } from "./event-stream.js";

/**
 * A remote MCP server reached over the Streamable HTTP transport, seen by the proxy as the lines
 * a stdio server would write. Each message the proxy forwards is POSTed to the server's URL; the
 * answer comes back as one JSON body or as a `text/event-stream` of messages, and a GET stream,
 * opened once the session is initialised, carries what the server sends unasked (list changes,
 * its own requests). The server's `Mcp-Session-Id` and the negotiated protocol revision go with
 * every later request, and the session is ended with a DELETE when the client leaves.
 *
 * The owner's headers (an API key) go only to the URL given: a redirect is not followed, since the
 * headers would go with it. A request the server does not answer (an HTTP error, a network error,
 * a stream that ends first) gets a JSON-RPC error, so the client never waits on it; the server's
 * own words about the failure go to the log, not to the client.
 */
export interface HttpUpstreamOptions {
  readonly server: string;
  readonly url: URL;
  /** Sent with every request; never logged. */
  readonly headers: Readonly<Record<string, string>>;
  readonly logger: Logger;
  readonly maxMessageBytes: number;
  /** One message from the server, as one line. */
  readonly deliver: (line: Buffer) => void;
  /** A message over the size limit, dropped. */
  readonly oversize: (bytes: number) => void;
  /** Resolves when the client can take more (its pipe is not full). */
  readonly ready: () => Promise<void>;
}

/** JSON-RPC's code for an error of the implementation: the server could not be asked. */
const UNREACHABLE = -32603;
/** The GET stream is opened again after it ends, at most this often. */
const RECONNECT_MS = 2_000;
/** A session id is visible ASCII (the transport's rule); anything else is not sent back. */
const SESSION_ID = /^[\x21-\x7e]{1,1024}$/;
const PROTOCOL_REVISION = /^\d{4}-\d{2}-\d{2}$/;

export class HttpUpstream {
  private sessionId: string | null = null;
  private protocolVersion: string | null = null;
  /** Ids (as JSON) of the client's `initialize` requests: their answers set the protocol revision. */
  private readonly initializing = new Set<string>();
  private readonly inFlight = new Set<AbortController>();
  private listening: AbortController | null = null;
  private closed = false;

  constructor(private readonly o: HttpUpstreamOptions) {}

  /** Where the log names the server: no query, which may hold a key. */
  get where(): string {
    return `${this.o.url.origin}${this.o.url.pathname}`;
  }

  /** A line the proxy forwards to the server. */
  send(line: Buffer | string): void {
    if (this.closed) return;
    const text = typeof line === "string" ? line : line.toString("utf8");
    const requests: string[] = [];
    let initialized = false;
    try {
      const parsed: unknown = JSON.parse(text);
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
        if (!isRecord(message)) continue;
        if (typeof message.method === "string" && "id" in message) {
          requests.push(JSON.stringify(message.id));
          if (message.method === "initialize") this.initializing.add(JSON.stringify(message.id));
        }
        if (message.method === "notifications/initialized") initialized = true;
      }
    } catch {
      // The proxy forwards what it could read; should anything else come, it goes as it is (no
      // request of it is known, so none gets an error), and the server judges it.
    }
    void this.post(text, requests).then((ok) => {
      if (ok && initialized) this.listen();
    });
  }

  /** The client left: what is in flight is dropped, and the server is told the session ended. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listening?.abort();
    for (const controller of this.inFlight) controller.abort();
    if (this.sessionId === null) return;
    try {
      await fetch(this.o.url, { method: "DELETE", headers: this.headers(), redirect: "manual", signal: AbortSignal.timeout(2_000) });
    } catch {
      // The session ends on the server's side in time all the same.
    }
  }

  private headers(accept = "application/json, text/event-stream"): Record<string, string> {
    return {
      ...this.o.headers,
      accept,
      ...(this.sessionId !== null ? { "mcp-session-id": this.sessionId } : {}),
      ...(this.protocolVersion !== null ? { "mcp-protocol-version": this.protocolVersion } : {}),
    };
  }

  /** POSTs one message (or batch); true when the server took it. Unanswered requests get an error. */
  private async post(body: string, requests: readonly string[]): Promise<boolean> {
    const controller = new AbortController();
    this.inFlight.add(controller);
    const answered = new Set<string>();
    try {
      const response = await fetch(this.o.url, {
        method: "POST",
        headers: { ...this.headers(), "content-type": "application/json" },
        body,
        redirect: "manual",
        signal: controller.signal,
      });
      if (!response.ok) {
        await this.refused(response, "POST");
        return false;
      }
      this.takeSession(response);
      await this.readBody(response, answered);
      return true;
    } catch (error) {
      if (!this.closed) this.o.logger.warn(`mcp ${this.o.server}: ${this.where} could not be reached: ${reason(error)}`);
      return false;
    } finally {
      this.inFlight.delete(controller);
      if (!this.closed) for (const id of requests) if (!answered.has(id)) this.fail(id);
    }
  }

  /** The GET stream of what the server sends unasked; a server that offers none answers 405. */
  private listen(): void {
    if (this.closed || this.listening !== null) return;
    const controller = new AbortController();
    this.listening = controller;
    void (async () => {
      let again = false;
      try {
        const response = await fetch(this.o.url, { method: "GET", headers: this.headers("text/event-stream"), redirect: "manual", signal: controller.signal });
        if (response.status === 405) return;
        if (!response.ok) {
          await this.refused(response, "GET");
          return;
        }
        await this.readBody(response, new Set());
        again = true;
      } catch (error) {
        if (!controller.signal.aborted) this.o.logger.warn(`mcp ${this.o.server}: the stream of ${this.where} failed: ${reason(error)}`);
        again = !controller.signal.aborted;
      } finally {
        this.listening = null;
      }
      if (again && !this.closed) setTimeout(() => this.listen(), RECONNECT_MS).unref();
    })();
  }

  private takeSession(response: Response): void {
    const id = response.headers.get("mcp-session-id");
    if (id === null || id === this.sessionId) return;
    if (!SESSION_ID.test(id)) {
      this.o.logger.warn(`mcp ${this.o.server}: ${this.where} gave a session id that is not visible ASCII; it is not sent back`);
      return;
    }
    this.sessionId = id;
  }

  private async refused(response: Response, method: string): Promise<void> {
    const text = await boundedText(response, 500).catch(() => "");
    const where = response.status >= 300 && response.status < 400 ? ` to ${response.headers.get("location") ?? "nowhere"} (not followed: the headers would go with it)` : "";
    this.o.logger.warn(`mcp ${this.o.server}: ${this.where} answered ${method} with HTTP ${response.status}${where}${text === "" ? "" : `: ${JSON.stringify(text)}`}`);
    if (response.status === 404 && this.sessionId !== null) this.o.logger.warn(`mcp ${this.o.server}: the server ended the session; restart the client to begin a new one`);
  }

  /** Delivers every message of a JSON or event-stream body, noting the ids answered. */
  private async readBody(response: Response, answered: Set<string>): Promise<void> {
    const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (response.body === null || response.status === 202 || response.status === 204) return;
    const reader = response.body.getReader();
    if (type === "text/event-stream") {
      const parser = new EventStreamParser(this.o.maxMessageBytes);
      for (;;) {
        await this.o.ready();
        const { done, value } = await reader.read();
        const events = done ? parser.end() : parser.push(value);
        for (const event of events) this.fromEvent(event, answered);
        if (done) return;
      }
    }
    const body = await readAtMost(reader, this.o.maxMessageBytes);
    if (!body.whole) {
      this.o.oversize(body.bytes.length);
      return;
    }
    if (body.bytes.length === 0) return;
    if (type !== "application/json") this.o.logger.warn(`mcp ${this.o.server}: ${this.where} answered with ${type === "" ? "no content type" : type}; read as JSON`);
    this.message(body.bytes.toString("utf8"), answered);
  }

  private fromEvent(event: StreamEvent, answered: Set<string>): void {
    if (event.kind === "oversize") this.o.oversize(event.bytes);
    else if (event.type === "message") this.message(event.data, answered);
  }

  /** One message (or batch) from the server: to the proxy as one line. */
  private message(text: string, answered: Set<string>): void {
    try {
      const parsed: unknown = JSON.parse(text);
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
        if (!isRecord(message) || !("id" in message) || !("result" in message || "error" in message)) continue;
        const id = JSON.stringify(message.id);
        answered.add(id);
        if (this.initializing.delete(id) && isRecord(message.result) && typeof message.result.protocolVersion === "string" && PROTOCOL_REVISION.test(message.result.protocolVersion)) {
          this.protocolVersion = message.result.protocolVersion;
        }
      }
    } catch {
      // Not JSON: the proxy reports it as unreadable.
    }
    // A raw line break in JSON is white space, so replacing it keeps the message as it was and
    // keeps it one line to the client.
    this.o.deliver(Buffer.from(text.replace(/[\r\n]/g, " "), "utf8"));
  }

  /** The client's request `id` (as JSON) will have no answer from the server. */
  private fail(id: string): void {
    const line = `{"jsonrpc":"2.0","id":${id},"error":{"code":${UNREACHABLE},"message":"provenant mcp: the remote MCP server did not answer (see the proxy's log)"}}`;
    this.o.deliver(Buffer.from(line, "utf8"));
  }
}

/** The first `max` characters of a body, for the log. */
async function boundedText(response: Response, max: number): Promise<string> {
  if (response.body === null) return "";
  // Reading stops once `max` bytes are in: the log needs no more.
  return (await readAtMost(response.body.getReader(), max - 1)).bytes.toString("utf8").slice(0, max);
}

/**
 * A body read until it ends or holds more than `max` bytes (the read that passed the bound is the
 * last, and the rest is never read): whole when it ended first.
 */
async function readAtMost(reader: ReadableStreamDefaultReader<Uint8Array>, max: number): Promise<{ readonly bytes: Buffer; readonly whole: boolean }> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), whole: true };
    chunks.push(value);
    bytes += value.byteLength;
    if (bytes > max) {
      await reader.cancel().catch(() => undefined);
      return { bytes: Buffer.concat(chunks), whole: false };
    }
  }
}

function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
