import { createHash } from "node:crypto";
import { dirname } from "node:path";
import type { Decision } from "../../core/decision.js";
import type { Logger } from "../../core/logger.js";
import { mcpToolName } from "../../core/mcp-tool-names.js";
import { displayText } from "../../core/safe-display.js";
import { applyStoredAnswer, heldCallRecord, shownCall } from "../../guard-held-calls.js";
import type { Guard, ToolCallInput } from "../../guard.js";
import { awaitAnswer } from "../../state/approval-answer-wait.js";
import { someoneIsWatching } from "../../state/console-presence.js";
import { isProcessAlive } from "../../state/file-lock.js";
import type { ApprovalAnswer, PendingApprovalStore } from "../../state/pending-approval-store.js";
import type { ToolPinStore } from "../../state/tool-pin-store.js";
import {
  answerableId,
  classify,
  errorResponse,
  idKey,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  parseLine,
  PARSE_ERROR,
  type Classified,
  type JsonRpcId,
  type JsonRpcMessage,
} from "./json-rpc.js";
import { asksOnlyTheClient, OpenRounds } from "./input-requests.js";
import { OwnStatePaths } from "./own-state-paths.js";
import { isListingMethod, LISTINGS, listedEntries, taskStatusMessages, type ListingKind, type ListingMethod } from "./listed-content.js";
import { listedDefinition } from "./tool-definition.js";

export interface McpProxyOptions {
  /** The server's name: its tools are `mcp__<server>__<tool>` to the guard. */
  readonly server: string;
  readonly guard: Guard;
  /** The guard session the client's calls belong to (shared by the proxies of one workspace by default). */
  readonly sessionId: string;
  readonly pins: ToolPinStore;
  /**
   * The server's `instructions` (its initialize result), pinned like its tools: clients such as
   * Claude Code put them in the model's context. Absent: passed through unpinned.
   */
  readonly instructionPins?: ToolPinStore;
  /** The command that accepts changed instructions, as the owner would type it. */
  readonly acceptInstructionsCommand?: string;
  /**
   * The entries of the server's prompt, resource and resource-template listings, pinned like its
   * tools. An entry that differs from its pin (or is new after the first complete listing) is the
   * server's content: it is shown, and enters the graph at the server's output trust. Absent: every
   * listed entry is counted so.
   */
  readonly listingPins?: Readonly<Record<ListingKind, ToolPinStore>>;
  /** The command that accepts the changed entries of the server's listings, as the owner would type it. */
  readonly acceptListingsCommand?: string;
  readonly approvals: PendingApprovalStore;
  readonly logger: Logger;
  readonly now: () => number;
  /** Unpredictable ids for the proxy's own requests to the client. */
  readonly randomId: () => string;
  /** Write one line to the client / to the server (the newline is added here). */
  readonly toClient: (line: string | Buffer) => void;
  readonly toServer: (line: string | Buffer) => void;
  /** The command the owner answers a held call with, as the owner would type it. */
  readonly approveCommand: (code: string) => string;
  readonly acceptCommand: (tool: string) => string;
  /**
   * Ask held calls through the client's elicitation when it offers it (default). Off for a client
   * that lets the model, not the user, answer elicitations: then only an approval code works.
   */
  readonly elicitation?: boolean;
  /**
   * Decide each `tools/call` (default). Off for a client whose own provenant guard decides every
   * call of the server with the whole conversation's taint (OpenClaw with the provenant plugin):
   * a second decision here, from this proxy's view of one server, would only ask the owner twice.
   * The proxy still pins and withholds what the server writes about itself.
   */
  readonly decideCalls?: boolean;
}

type Outcome = { readonly kind: "forward" } | { readonly kind: "replace"; readonly value: unknown } | { readonly kind: "consumed" };

const FORWARD: Outcome = { kind: "forward" };
const CONSUMED: Outcome = { kind: "consumed" };

/** The call whose output an answer is, as the guard knows it. */
interface ProducingCall {
  readonly tool: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * A request forwarded to the server and not answered yet, with what its answer is to the proxy: a
 * listing to filter, an initialize result to check, output that enters the graph, or nothing to do.
 */
type OpenRequest =
  | { readonly kind: "instructions" | "status" | "plain"; readonly id: JsonRpcId }
  | { readonly kind: "tools/list"; readonly id: JsonRpcId; readonly firstPage: boolean }
  | { readonly kind: "listing"; readonly id: JsonRpcId; readonly method: ListingMethod; readonly firstPage: boolean }
  | (ProducingCall & {
      readonly kind: "output";
      readonly id: JsonRpcId;
      readonly callId: string;
      /** A request the server may answer `input_required` (2026-07-28): a tool call the guard let through, or a resource read or a prompt. */
      readonly roundTrip?: "call" | "content";
    });

interface AskedOwner {
  readonly requestKey: string;
  /** The client's answer, or `server-gone`: the server exited while the owner was asked. */
  readonly answer: (action: "accept" | "decline" | "cancel" | "error" | "server-gone") => void;
}

/**
 * A client that cannot show an elicitation cancels it at once (Claude Code run with `-p` does,
 * while declaring the capability). A cancel this soon says nobody saw the question, so the held
 * call gets its approval code, as for a client that does not elicit; a later one is the owner's.
 */
const UNSEEN_CANCEL_MS = 2000;

/** Requests whose answer is, by the protocol, the server's content for the model: an attached resource, a prompt. */
const CONTENT_METHODS: ReadonlySet<string> = new Set(["resources/read", "prompts/get"]);

/** Requests whose answer carries a task's status message (the server's words about the call it runs). */
const TASK_STATUS_METHODS: ReadonlySet<string> = new Set(["tasks/get", "tasks/list", "tasks/cancel"]);

/**
 * Requests whose answer carries none of the server's words for the model: an empty result, or
 * completion values the client offers its user as they type. The answer to any other request
 * (`resources/read`, `prompts/get`, a later protocol's method, a client's own extension) is content
 * the client may put before the model: it enters the graph like a tool's output, at the server's
 * output trust (`mcp__<server>__*` in `toolOutputTaints`; untrusted by default).
 */
const PLAIN_METHODS: ReadonlySet<string> = new Set(["ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "subscriptions/listen", "completion/complete"]);

/**
 * Notifications from the server that carry none of its words for the model: signals about lists
 * and subscriptions, a cancellation, and the progress and log messages clients show their users.
 * Any other (a client's extension such as `notifications/claude/channel`, which pushes a message
 * into the conversation, or a later protocol's) may reach the model: it enters the graph as the
 * server's output at large. A task's status is counted as its call's output (`countStatus`).
 */
const PLAIN_SERVER_NOTIFICATIONS: ReadonlySet<string> = new Set([
  "notifications/cancelled",
  "notifications/progress",
  "notifications/message",
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/elicitation/complete",
  "notifications/subscriptions/acknowledged",
]);

/**
 * Requests the server may send the client, whose words go to the client's user or nowhere near the
 * model: an elicitation (the user answers it; with `elicitation: false` the proxy takes it that the
 * model may, and counts it), a sampling request (a separate completion whose answer goes back to the
 * server; not decided, docs/mcp.md), the roots, a ping, a task's state. Any other request's params
 * enter the graph as the server's output at large before the client sees them.
 */
const SERVER_REQUESTS: ReadonlySet<string> = new Set(["ping", "roots/list", "elicitation/create", "sampling/createMessage", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel"]);

/** The name the server's instructions are pinned under, in their own pin file. */
export const INSTRUCTIONS = "instructions";

/** The log names each method of the server's own messages counted at large once, for this many methods (a hostile server may invent any number). */
const MAX_LOGGED_METHODS = 100;

/** Past this many requests the server has not answered, the oldest is given up (the client gets an error). */
const MAX_OUTSTANDING = 10_000;

/**
 * The stdio MCP proxy between one client and one server. Every message passes through untouched
 * except: a `tools/list` result, from which tools the taint restricts and tools whose definition
 * changed since it was pinned are removed; and a `tools/call`, which the guard decides before it
 * may reach the server (held calls ask the owner through elicitation, or name an approval code),
 * and whose result enters the guard's graph at the server's output trust. The server's other words
 * a client may show its model enter the graph too (a resource read, a prompt, a task's status, a
 * listed prompt or resource that differs from its pin, the answer to any request it does not know,
 * a notification or request of its own that may reach the model), or are withheld (changed
 * instructions, from `initialize` or `server/discover`). A question for the client's user
 * (2026-07-28 `input_required`) passes uncounted, and the retry it leads to is the call already decided.
 *
 * Fail safe: a message that cannot be read, or a failure of ours while handling a `tools/call`,
 * never forwards that call; the peer gets a generic JSON-RPC error and our log the detail.
 */
export class McpProxy {
  /**
   * Requests the server was sent and has not answered, by id key. Only these may be answered: a
   * server that answers another id (a held call it never saw, which the client still waits for)
   * would put its words before the model without their entering the graph.
   */
  private readonly open = new Map<string, OpenRequest>();
  /**
   * Tasks the server created for a call (a task-augmented `tools/call` answers at once with a task;
   * the client fetches the call's result later with `tasks/result`), by task id, to that call.
   */
  private readonly tasks = new Map<string, ProducingCall>();
  /** Output no one call of the server produced (a resource, a prompt, a task nobody can name): the server's at large. */
  private readonly atLarge: ProducingCall;
  private readonly asked = new Map<string, AskedOwner>();
  /** Client request keys of tools/call waiting for the owner, to their elicitation id. */
  private readonly waiting = new Map<string, string>();
  /** Client request keys of tools/call waiting for the owner's answer in the store, to the wait's end. */
  private readonly awaiting = new Map<string, AbortController>();
  /** The pin file as last read: refreshed after every listing, and whenever a call names a tool it does not accept. */
  private pinView: { readonly complete: boolean; readonly pinned: ReadonlySet<string>; readonly held: ReadonlySet<string> } | null = null;
  private readonly codeExpiry = new Map<string, number>();
  private clientElicits = false;
  /**
   * The client speaks protocol revision 2026-07-28 or later, which names itself in every request's
   * `_meta`: a result must then say it is complete, and the proxy's own tool errors do.
   */
  private resultTypes = false;
  /** Calls let through that the server answered with a question for the client's user: their retries are not decided again. */
  private readonly rounds = new OpenRounds();
  /** The methods of the server's own messages counted at large and logged so far. */
  private readonly countedMethods = new Set<string>();
  private callSeq = 0;
  private elicitSeq = 0;

  private readonly ownState: OwnStatePaths;

  constructor(private readonly o: McpProxyOptions) {
    this.ownState = new OwnStatePaths(dirname(o.approvals.dir));
    this.atLarge = { tool: mcpToolName(o.server, "*"), params: {} };
  }

  /** One line from the client. */
  fromClient(line: Buffer): void {
    this.onLine(line, "client");
  }

  /** One line from the server. */
  fromServer(line: Buffer): void {
    this.onLine(line, "server");
  }

  /** A line past the size limit, already dropped by the splitter. */
  oversize(side: "client" | "server", bytes: number): void {
    this.o.logger.warn(`mcp ${this.o.server}: dropped a ${bytes}-byte line from the ${side}: over the line limit`);
    this.reply(side, errorResponse(null, INVALID_REQUEST));
  }

  /** The server is gone: every call and listing still open gets an error, and every owner prompt ends. */
  serverClosed(): void {
    for (const { id } of this.open.values()) {
      this.o.logger.warn(`mcp ${this.o.server}: request ${JSON.stringify(id)} unanswered when the server exited`);
      this.send("client", errorResponse(id, INTERNAL_ERROR));
    }
    this.open.clear();
    for (const asked of [...this.asked.values()]) asked.answer("server-gone");
    for (const wait of [...this.awaiting.values()]) wait.abort();
  }

  private onLine(line: Buffer, side: "client" | "server"): void {
    // A server may read names that differ in case as one (Go's and .NET's readers do). From the
    // server, exact repeats only: a pin's digest covers every name as spelled, and all else a
    // server says is untrusted output however a client reads it.
    const parsed = parseLine(line, side === "client");
    if (!parsed.ok) {
      this.o.logger.warn(`mcp ${this.o.server}: unreadable message from the ${side}: ${parsed.reason}`);
      this.reply(side, errorResponse(null, PARSE_ERROR));
      return;
    }
    const classified = classify(parsed.value);
    if (parsed.repeatedName !== null) {
      // The line is forwarded as it came: with a name twice, the peer's parser may read another message than ours did.
      const { name, earlier } = parsed.repeatedName;
      const reason =
        name === earlier
          ? `the member name ${JSON.stringify(name)} appears twice in one object, which parsers read differently`
          : `the member names ${JSON.stringify(earlier)} and ${JSON.stringify(name)} of one object are one name to a reader that ignores case or Unicode normal form`;
      this.handle({ kind: "invalid", reason, id: answerableId(classified) }, side);
      return;
    }
    if (classified.kind === "batch") {
      const kept: unknown[] = [];
      for (const item of classified.items) {
        const outcome = this.handle(item, side);
        if (outcome.kind === "forward" && item.kind === "message") kept.push(item.message.raw);
        else if (outcome.kind === "replace") kept.push(outcome.value);
      }
      if (kept.length > 0) this.send(side === "client" ? "server" : "client", JSON.stringify(kept));
      return;
    }
    const outcome = this.handle(classified, side);
    if (outcome.kind === "forward") this.send(side === "client" ? "server" : "client", line);
    else if (outcome.kind === "replace") this.send(side === "client" ? "server" : "client", JSON.stringify(outcome.value));
  }

  private handle(item: Classified, side: "client" | "server"): Outcome {
    if (item.kind === "batch") {
      // A batch inside a batch is not JSON-RPC.
      this.reply(side, errorResponse(null, INVALID_REQUEST));
      return CONSUMED;
    }
    if (item.kind === "invalid") {
      this.o.logger.warn(`mcp ${this.o.server}: invalid JSON-RPC message from the ${side}: ${item.reason}`);
      this.reply(side, errorResponse(item.id, INVALID_REQUEST));
      // The request it may answer must not wait forever.
      if (side === "server" && item.id !== null) this.failOpenRequest(item.id);
      return CONSUMED;
    }
    try {
      return side === "client" ? this.fromClientMessage(item.message) : this.fromServerMessage(item.message);
    } catch (error) {
      this.o.logger.error(`mcp ${this.o.server}: failed handling a message from the ${side}`, error);
      const message = item.message;
      if (side === "client" && message.kind === "request") {
        // Whatever it was, it is not forwarded now: for a tools/call that is the safe side.
        this.send("client", errorResponse(message.id, INTERNAL_ERROR));
        return CONSUMED;
      }
      if (side === "server") {
        // A listing that was not filtered, or words of the server that did not enter the graph, must not reach the model.
        if (message.kind === "response" && message.id !== null) this.failOpenRequest(message.id);
        if (message.kind === "request") this.send("server", errorResponse(message.id, INTERNAL_ERROR));
        return CONSUMED;
      }
      // A client's notification goes on as it would have (a cancellation the server may need), but never an id-less call;
      // a client's answer we handle is to a question of ours, never the server's.
      return message.kind === "notification" && message.method !== "tools/call" ? FORWARD : CONSUMED;
    }
  }

  private fromClientMessage(message: JsonRpcMessage): Outcome {
    switch (message.kind) {
      case "request": {
        const key = idKey(message.id);
        if (this.open.has(key) || this.waiting.has(key) || this.awaiting.has(key)) {
          // Two open requests with one id: the server's answer could not say which it answers.
          this.o.logger.warn(`mcp ${this.o.server}: the client reused the id ${JSON.stringify(message.id)} of a request still open; refused`);
          this.send("client", errorResponse(message.id, INVALID_REQUEST));
          return CONSUMED;
        }
        if (!this.resultTypes && namesRevision(message.params)) this.resultTypes = true;
        if (message.method === "initialize") {
          this.clientElicits = this.o.elicitation !== false && declaresElicitation(message.params);
          this.track({ kind: "instructions", id: message.id });
          return FORWARD;
        }
        if (message.method === "server/discover") {
          // Protocol revision 2026-07-28 has no initialize: the instructions come with discovery.
          // That revision has no requests from server to client either, so the proxy does not elicit.
          this.track({ kind: "instructions", id: message.id });
          return FORWARD;
        }
        if (message.method === "tools/list") {
          this.track({ kind: "tools/list", id: message.id, firstPage: isFirstPage(message.params) });
          return FORWARD;
        }
        if (isListingMethod(message.method)) {
          this.track({ kind: "listing", id: message.id, method: message.method, firstPage: isFirstPage(message.params) });
          return FORWARD;
        }
        if (message.method === "tools/call") return this.onToolsCall(message.id, message.params, message.raw);
        if (message.method === "tasks/result") {
          // The result of a call the server ran as a task: that call's output, as if it had answered at once.
          const taskId = taskIdOf(message.params);
          const call = (taskId === null ? undefined : this.tasks.get(taskId)) ?? this.atLarge;
          this.startTurn();
          this.track({ kind: "output", id: message.id, callId: `t${++this.callSeq}`, ...call });
        } else if (TASK_STATUS_METHODS.has(message.method)) this.track({ kind: "status", id: message.id });
        else if (PLAIN_METHODS.has(message.method)) this.track({ kind: "plain", id: message.id });
        else {
          // An attached resource, a prompt, or a method the proxy does not know: the server's words.
          if (!CONTENT_METHODS.has(message.method)) this.o.logger.warn(`mcp ${this.o.server}: the client asked ${displayText(message.method)}, a method the proxy does not know; its answer counts as the server's output`);
          this.startTurn();
          this.track({ kind: "output", id: message.id, callId: `r${++this.callSeq}`, ...this.atLarge, ...(CONTENT_METHODS.has(message.method) ? { roundTrip: "content" } : {}) });
        }
        return FORWARD;
      }
      case "notification":
        if (message.method === "notifications/cancelled") return this.onCancelled(message.params);
        if (message.method === "tools/call") {
          // A call without an id gets no answer, so it could not be held: a server that ran it anyway would run it unasked.
          this.o.logger.warn(`mcp ${this.o.server}: a tools/call without an id from the client; dropped`);
          return CONSUMED;
        }
        return FORWARD;
      case "response": {
        const asked = typeof message.id === "string" ? this.asked.get(message.id) : undefined;
        if (asked === undefined) return FORWARD;
        this.asked.delete(message.id as string);
        asked.answer(elicitationAction(message));
        return CONSUMED;
      }
    }
  }

  private fromServerMessage(message: JsonRpcMessage): Outcome {
    if (message.kind === "notification") {
      if (message.method === "notifications/tasks/status") this.countStatus(message.params);
      else if (!PLAIN_SERVER_NOTIFICATIONS.has(message.method)) this.countAtLarge(message.method, message.params);
      return FORWARD;
    }
    if (message.kind === "request") {
      const elicitsTheModel = message.method === "elicitation/create" && this.o.elicitation === false;
      if (!SERVER_REQUESTS.has(message.method) || elicitsTheModel) this.countAtLarge(message.method, message.params);
      return FORWARD;
    }
    if (message.id === null) {
      // An error about a message the server could not read answers no request; anything else is dropped.
      if (message.error !== undefined) return FORWARD;
      this.o.logger.warn(`mcp ${this.o.server}: a result without an id from the server; dropped`);
      return CONSUMED;
    }
    const key = idKey(message.id);
    const request = this.open.get(key);
    if (request === undefined) {
      this.o.logger.warn(`mcp ${this.o.server}: the server answered ${JSON.stringify(message.id)}, a request it was not sent or has answered already; dropped`);
      return CONSUMED;
    }
    // Still open while it is handled: a failure here answers the client with an error (handle's catch).
    const outcome = this.onAnswer(request, message);
    this.open.delete(key);
    return outcome;
  }

  private onAnswer(request: OpenRequest, message: Extract<JsonRpcMessage, { kind: "response" }>): Outcome {
    switch (request.kind) {
      case "tools/list":
        return this.onToolsListed(message, request.firstPage);
      case "instructions":
        return this.withPinnedInstructions(message);
      case "plain":
        return FORWARD;
      case "listing":
        return this.onListed(request.method, message, request.firstPage);
      case "status":
        this.countStatus(message.result);
        return FORWARD;
      case "output": {
        // A question for the client's user (2026-07-28), as a request of earlier revisions would be: passed as those are.
        if (request.roundTrip !== undefined && asksOnlyTheClient(message.result, this.o.elicitation !== false)) {
          if (request.roundTrip === "call") this.rounds.opened(request.tool, request.params, message.result, this.o.now());
          return FORWARD;
        }
        // An error's text is the server's words too: it enters the context like any output.
        const outcome = this.o.guard.afterToolCall(this.o.sessionId, { id: request.callId, tool: request.tool, params: request.params, output: message.error ?? message.result, ran: true });
        const task = taskIdOf(message.result !== null && typeof message.result === "object" ? (message.result as { task?: unknown }).task : undefined);
        if (task !== null) this.taskCreated(task, request);
        return outcome.notice === undefined ? FORWARD : withNotice(message, outcome.notice);
      }
    }
  }

  /** A task id the server gave two calls names neither: its result is then the server's output at large. */
  private taskCreated(taskId: string, call: ProducingCall): void {
    this.tasks.set(taskId, this.tasks.has(taskId) ? this.atLarge : { tool: call.tool, params: call.params });
    if (this.tasks.size > MAX_OUTSTANDING) {
      const [oldest] = this.tasks.keys();
      if (oldest !== undefined) this.tasks.delete(oldest);
    }
  }

  /**
   * The server's instructions are the server's words in the model's context, fixed at install like
   * its tool descriptions: the first ones seen are pinned, and instructions that differ from the pin
   * are withheld (the result goes on without them) until the owner accepts them. They come in the
   * result of `initialize`, or of `server/discover` (protocol revision 2026-07-28); one pin holds both.
   */
  private withPinnedInstructions(message: Extract<JsonRpcMessage, { kind: "response" }>): Outcome {
    const pins = this.o.instructionPins;
    const result = message.result;
    if (pins === undefined || message.error !== undefined || result === null || typeof result !== "object" || Array.isArray(result)) return FORWARD;
    const { instructions, ...rest } = result as Record<string, unknown>;
    if (instructions === undefined) return FORWARD;
    const text = typeof instructions === "string" ? instructions : (JSON.stringify(instructions) ?? "");
    const digest = createHash("sha256").update(text, "utf8").digest("hex");
    const held = pins.observe([{ name: INSTRUCTIONS, digest, definition: instructions }], { first: true, last: true }, new Date(this.o.now()));
    if (!held.has(INSTRUCTIONS)) return FORWARD;
    this.o.logger.warn(
      `mcp ${this.o.server}: the server's instructions differ from those first seen; withheld until the owner reviews them with 'provenant mcp pins ${this.o.server}' and runs: ${this.o.acceptInstructionsCommand ?? `provenant mcp accept ${this.o.server} --instructions`}`,
    );
    return { kind: "replace", value: { ...message.raw, result: rest } };
  }

  private onToolsListed(message: Extract<JsonRpcMessage, { kind: "response" }>, firstPage: boolean): Outcome {
    if (message.error !== undefined) return FORWARD;
    const result = message.result;
    if (result === null || typeof result !== "object" || Array.isArray(result) || !Array.isArray((result as { tools?: unknown }).tools)) {
      this.o.logger.warn(`mcp ${this.o.server}: a tools/list result without a tools array; not forwarded`);
      this.send("client", errorResponse(message.id, INTERNAL_ERROR));
      return CONSUMED;
    }
    const body = result as Record<string, unknown> & { tools: unknown[] };
    const listed = [];
    for (const entry of body.tools) {
      const definition = listedDefinition(entry);
      if (definition === null) {
        this.o.logger.warn(`mcp ${this.o.server}: dropped a tools/list entry with no name`);
        continue;
      }
      listed.push({ entry, definition });
    }
    const held = this.o.pins.observe(
      listed.map((l) => ({ name: l.definition.name, digest: l.definition.digest, definition: l.definition.definition })),
      { first: firstPage, last: isLastPage(body) },
      new Date(this.o.now()),
    );
    this.pinView = null;
    for (const name of held) this.o.logger.warn(`mcp ${this.o.server}: tool ${displayText(name)} differs from its pinned definition (or is new); hidden until the owner runs: ${this.o.acceptCommand(name)}`);
    this.startTurn();
    const names = listed.filter((l) => !held.has(l.definition.name)).map((l) => mcpToolName(this.o.server, l.definition.name));
    // The client's own guard narrows its list when it decides the calls.
    const shown = new Set(this.o.decideCalls === false ? names : this.o.guard.toolsFor(this.o.sessionId, names));
    const tools = listed.filter((l) => shown.has(mcpToolName(this.o.server, l.definition.name))).map((l) => l.entry);
    return { kind: "replace", value: { ...message.raw, result: { ...body, tools } } };
  }

  /**
   * A prompt or resource listing: the entries that match their pins pass as the owner installed
   * them; the others (changed, new after the first complete listing, or naming nothing) are the
   * server's words, which enter the graph at its output trust before the client can show them.
   * An error's text is withheld: a listing that failed has nothing to show the model.
   */
  private onListed(method: ListingMethod, message: Extract<JsonRpcMessage, { kind: "response" }>, firstPage: boolean): Outcome {
    if (message.error !== undefined) {
      // Its shape was checked on the way in: an object with an integer code.
      const { code } = message.error as { code: number };
      this.o.logger.warn(`mcp ${this.o.server}: ${method} failed: ${displayText(JSON.stringify(message.error))}`);
      return { kind: "replace", value: { jsonrpc: "2.0", id: message.id, error: { code, message: `${method} failed` } } };
    }
    const listed = listedEntries(method, message.result);
    if (listed === null) {
      this.o.logger.warn(`mcp ${this.o.server}: a ${method} result without a ${LISTINGS[method].field} array; not forwarded`);
      this.send("client", errorResponse(message.id, INTERNAL_ERROR));
      return CONSUMED;
    }
    const pins = this.o.listingPins?.[LISTINGS[method].kind];
    const held = pins === undefined ? new Set(listed.entries.map((e) => e.name)) : pins.observe(listed.entries, { first: firstPage, last: isLastPage(message.result) }, new Date(this.o.now()));
    const unpinned = [...listed.entries.filter((e) => held.has(e.name)).map((e) => e.definition), ...listed.unnamed];
    if (unpinned.length > 0) {
      this.o.logger.warn(
        `mcp ${this.o.server}: ${unpinned.length} ${method} entr${unpinned.length === 1 ? "y differs" : "ies differ"} from the pinned listing (or are new); counted as the server's content` +
          (this.o.acceptListingsCommand === undefined ? "" : `; to pin them after review ('provenant mcp pins ${this.o.server}'): ${this.o.acceptListingsCommand}`),
      );
      this.startTurn();
      this.o.guard.afterToolCall(this.o.sessionId, { id: `l${++this.callSeq}`, tool: this.atLarge.tool, params: this.atLarge.params, output: { [LISTINGS[method].field]: unpinned }, ran: true });
    }
    return FORWARD;
  }

  /** A message of the server's own that may reach the model: its params enter the graph as the server's output at large. */
  private countAtLarge(method: string, params: unknown): void {
    if (this.countedMethods.size < MAX_LOGGED_METHODS && !this.countedMethods.has(method)) {
      this.countedMethods.add(method);
      this.o.logger.warn(`mcp ${this.o.server}: the server sent ${displayText(method)}, which the client may show its model; counted as the server's output (logged once per method)`);
    }
    this.startTurn();
    this.o.guard.afterToolCall(this.o.sessionId, { id: `m${++this.callSeq}`, tool: this.atLarge.tool, params: this.atLarge.params, output: { [method]: params ?? null }, ran: true });
  }

  /** Task status messages are the server's words about a call: each enters the graph as the output of its task's call. */
  private countStatus(value: unknown): void {
    const found = taskStatusMessages(value);
    if (found.length === 0) return;
    this.startTurn();
    for (const { taskId, message } of found) {
      const call = (taskId === null ? undefined : this.tasks.get(taskId)) ?? this.atLarge;
      this.o.guard.afterToolCall(this.o.sessionId, { id: `s${++this.callSeq}`, tool: call.tool, params: call.params, output: { statusMessage: message }, ran: true });
    }
  }

  private onToolsCall(id: JsonRpcId, params: unknown, request: Readonly<Record<string, unknown>>): Outcome {
    const call = toolCallParams(params);
    if (call === null) {
      this.o.logger.warn(`mcp ${this.o.server}: tools/call ${String(id)} with invalid params; not forwarded`);
      this.send("client", errorResponse(id, INVALID_PARAMS));
      return CONSUMED;
    }
    const unaccepted = this.unaccepted(call.name);
    if (unaccepted !== null) {
      this.toolError(id, `provenant held this call: ${unaccepted}`);
      return CONSUMED;
    }
    const ownState = this.ownState.named(call.args);
    if (ownState !== null) {
      this.o.logger.warn(`mcp ${this.o.server}: refused ${displayText(call.name)}: an argument names provenant's own state (${displayText(ownState)})`);
      this.toolError(id, `provenant blocked this call: an argument names provenant's own state (${displayText(ownState)}); no approval is possible`);
      return CONSUMED;
    }
    if (this.o.decideCalls === false) {
      this.track({ kind: "plain", id });
      return FORWARD;
    }
    const tool = mcpToolName(this.o.server, call.name);
    this.startTurn();
    const callId = `c${++this.callSeq}`;
    if (this.rounds.continues(tool, call.args, params, this.o.now())) {
      this.o.logger.info(`mcp ${this.o.server}: ${displayText(call.name)}: the client's retry with its user's answers, of a call already let through; not decided again`);
      this.track({ kind: "output", id, callId, tool, params: call.args, roundTrip: "call" });
      return FORWARD;
    }
    let decision = this.o.guard.beforeToolCall(this.o.sessionId, { id: callId, tool, params: call.args });
    if (decision.verdict === "confirm" && decision.code !== undefined) decision = this.withStoredAnswer(decision, callId, call.args);
    if (decision.verdict === "allow") {
      this.track({ kind: "output", id, callId, tool, params: call.args, roundTrip: "call" });
      return FORWARD;
    }
    if (decision.verdict === "block" || decision.code === undefined) {
      this.toolError(id, `provenant blocked this call: ${decision.reason}`);
      return CONSUMED;
    }
    if (this.clientElicits) this.askOwner(id, decision, callId, call.args, request);
    else this.holdForApproval(id, decision, { id: callId, tool, params: call.args }, request);
    return CONSUMED;
  }

  /**
   * Why a tool may not be called now, or null: its definition differs from the pinned one (or it
   * appeared after the first listing), or it was never in an accepted listing at all, which a call
   * made before any listing of this process would otherwise slip past.
   */
  private unaccepted(name: string): string | null {
    const blocked = (v: NonNullable<McpProxy["pinView"]>) => v.held.has(name) || (v.complete && !v.pinned.has(name));
    if (this.pinView !== null && !blocked(this.pinView)) return null;
    // Not accepted as last read: read again, the owner may have accepted it since.
    const state = this.o.pins.read();
    this.pinView = { complete: state.complete, pinned: new Set(state.tools.keys()), held: new Set(state.held.keys()) };
    if (!blocked(this.pinView)) return null;
    const shown = displayText(name);
    return this.pinView.held.has(name)
      ? `the definition of tool ${shown} changed since it was first seen (or it is new), and the owner has not accepted it. The owner can review it with 'provenant mcp pins ${this.o.server}' and accept it with: ${this.o.acceptCommand(name)}`
      : `tool ${shown} was not in any listing of this server the owner accepted`;
  }

  /** A code the owner answered from outside (the `approve` command, a console) applies to this exact retry. */
  private withStoredAnswer(decision: Decision, callId: string, args: Readonly<Record<string, unknown>>): Decision {
    const code = decision.code as string;
    const answer = this.o.approvals.answerFor(code) ?? this.answerFromEarlierHolder(decision);
    if (answer === null) return decision;
    this.o.approvals.remove(code);
    this.codeExpiry.delete(code);
    const applied = applyStoredAnswer(this.o.guard, this.o.sessionId, { id: callId, tool: decision.tool, params: args }, decision, answer);
    this.o.logger.info(`mcp ${this.o.server}: ${applied.message}`);
    return applied.decision;
  }

  /**
   * The owner's answer to this exact call (same session, server and call text) held by a proxy
   * process that has since exited: a client that restarted its servers, or a headless client whose
   * every run starts them anew. The held call's text promised that the unchanged retry runs; the
   * retry reaches a new process, whose guard holds the call under a code of its own. The answer is
   * used once, for this call only, and its record goes. A holder still running keeps its answer.
   */
  private answerFromEarlierHolder(decision: Decision): ApprovalAnswer | null {
    const now = this.o.now();
    const mine = heldCallRecord({ decision, frontEnd: "mcp", origin: this.o.server, sessionId: this.o.sessionId, now, expiresAt: now, waitingUntil: null });
    // A call too long for the store is kept cut short there: its record does not say it is this one.
    if (mine.call !== shownCall(decision)) return null;
    for (const { pending, answer } of this.o.approvals.list(now)) {
      if (answer === null || isProcessAlive(pending.pid)) continue;
      // The call's text names the tool and its arguments.
      if (pending.frontEnd !== mine.frontEnd || pending.origin !== mine.origin || pending.sessionId !== mine.sessionId || pending.call !== mine.call) continue;
      this.o.approvals.remove(pending.code);
      this.o.logger.info(`mcp ${this.o.server}: the owner answered this call (code ${pending.code}) while an earlier process held it; applied to code ${decision.code as string}`);
      return { ...answer, code: decision.code as string };
    }
    return null;
  }

  /**
   * A held call the client cannot be asked about. While a console shows the owner's inbox, the
   * request stays open up to `approvalWaitSeconds` (within the code's life) and the call runs or
   * fails as soon as the owner answers; otherwise, or when the wait ends unanswered, the client
   * gets a tool error naming the code, and the model's unchanged retry runs once it is approved.
   */
  private holdForApproval(id: JsonRpcId, decision: Decision, call: ToolCallInput, raw: Readonly<Record<string, unknown>>): void {
    const code = decision.code as string;
    const now = this.o.now();
    const known = this.codeExpiry.get(code);
    const expiresAt = known ?? now + this.o.guard.config.approvalTtlSeconds * 1000;
    const requestKey = idKey(id);
    const waitUntil = Math.min(now + this.o.guard.config.approvalWaitSeconds * 1000, expiresAt);
    const wait = waitUntil > now && !this.awaiting.has(requestKey) && someoneIsWatching(this.o.approvals, now);
    if (known === undefined) {
      for (const [c, at] of this.codeExpiry) if (at <= now) this.codeExpiry.delete(c);
      this.codeExpiry.set(code, expiresAt);
    }
    // The model repeating a held call gets the same code, already on record (refreshed when this request waits).
    if (known === undefined || wait) this.recordHeld(decision, now, expiresAt, wait ? waitUntil : null);
    if (!wait) {
      this.toolError(id, this.heldText(decision, expiresAt));
      return;
    }
    const controller = new AbortController();
    this.awaiting.set(requestKey, controller);
    this.o.logger.info(`mcp ${this.o.server}: holding ${displayText(decision.tool)} (code ${code}) open for the owner's answer until ${new Date(waitUntil).toISOString()}`);
    void awaitAnswer(this.o.approvals, code, { deadlineMs: waitUntil, signal: controller.signal, now: this.o.now }).then((answer) => {
      if (this.awaiting.get(requestKey) !== controller) return;
      this.awaiting.delete(requestKey);
      try {
        this.afterWait(id, decision, call, raw, answer, controller.signal.aborted, expiresAt);
      } catch (error) {
        this.o.logger.error(`mcp ${this.o.server}: failed applying the owner's answer to ${code}`, error);
        this.send("client", errorResponse(id, INTERNAL_ERROR));
      }
    });
  }

  private afterWait(id: JsonRpcId, decision: Decision, call: ToolCallInput, raw: Readonly<Record<string, unknown>>, answer: ApprovalAnswer | null, cancelled: boolean, expiresAt: number): void {
    const code = decision.code as string;
    if (answer === null) {
      // Cancelled (the client gave up, or the server is gone) or unanswered: the retry path stays open.
      this.recordHeld(decision, this.o.now(), expiresAt, null);
      if (!cancelled) this.toolError(id, this.heldText(decision, expiresAt));
      return;
    }
    this.o.approvals.remove(code);
    this.codeExpiry.delete(code);
    // The session's state may have moved on while the owner read the call: decide it from now.
    this.startTurn();
    const applied = applyStoredAnswer(this.o.guard, this.o.sessionId, call, decision, answer);
    this.o.logger.info(`mcp ${this.o.server}: ${applied.message}`);
    if (applied.decision.verdict === "allow") {
      this.track({ kind: "output", id, callId: call.id ?? code, tool: call.tool, params: call.params, roundTrip: "call" });
      this.send("server", JSON.stringify(raw));
      return;
    }
    this.toolError(id, `provenant ${applied.decision.verdict === "block" ? "blocked" : "held"} this call: ${applied.decision.reason.split("\n")[0] ?? ""}`);
  }

  private heldText(decision: Decision, expiresAt: number): string {
    const code = decision.code as string;
    const lines = decision.reason.split("\n");
    // A call held while the session is trusted (an unknown tool) has no untrusted source to name.
    const source = decision.provenance === null || decision.provenance.trust === "trusted" ? null : `${decision.provenance.label} (${decision.provenance.trust})`;
    return (
      `provenant held this call: ${lines[0] ?? decision.reason}\n` +
      `Call: ${shownCall(decision)}\n` +
      (source === null ? "" : `Untrusted source: ${source}\n`) +
      `Approval code: ${code} (expires ${new Date(expiresAt).toISOString()})\n` +
      `Only the owner can allow it, by running:  ${this.o.approveCommand(code)}\n` +
      `Then the same call, retried unchanged, runs once.`
    );
  }

  /** Without the record the owner cannot answer from outside; the call is held all the same. */
  private recordHeld(decision: Decision, now: number, expiresAt: number, waitingUntil: number | null): void {
    try {
      this.o.approvals.sweep(process.pid, now);
      this.o.approvals.hold(heldCallRecord({ decision, frontEnd: "mcp", origin: this.o.server, sessionId: this.o.sessionId, now, expiresAt, waitingUntil }));
    } catch (error) {
      this.o.logger.error(`mcp ${this.o.server}: could not record held call ${decision.code ?? "?"} for the owner`, error);
    }
  }

  private askOwner(id: JsonRpcId, decision: Decision, callId: string, args: Readonly<Record<string, unknown>>, raw: Readonly<Record<string, unknown>>): void {
    const requestKey = idKey(id);
    const elicitId = `provenant-${this.o.randomId()}-${++this.elicitSeq}`;
    const lines = decision.reason.split("\n");
    const shown = lines.find((l) => l.startsWith("Call: "))?.slice("Call: ".length) ?? displayText(decision.tool);
    const source = decision.provenance === null ? "" : `\nThe conversation holds ${decision.provenance.trust} content from ${decision.provenance.label}.`;
    const message = `provenant held a tool call.\n${lines[0] ?? ""}${source}\nCall: ${shown}\nAllow this one call?`;
    const askedAt = this.o.now();
    this.waiting.set(requestKey, elicitId);
    this.asked.set(elicitId, {
      requestKey,
      answer: (action) => {
        this.asked.delete(elicitId);
        if (this.waiting.get(requestKey) !== elicitId) return;
        this.waiting.delete(requestKey);
        try {
          if (action === "error" || (action === "cancel" && this.o.now() - askedAt < UNSEEN_CANCEL_MS)) {
            this.o.logger.info(`mcp ${this.o.server}: the client could not show the question about ${displayText(decision.tool)} (${action === "error" ? "an error" : "cancelled at once"}); the call gets its approval code`);
            this.holdForApproval(id, decision, { id: callId, tool: decision.tool, params: args }, raw);
            return;
          }
          if (action !== "accept") {
            this.toolError(id, `provenant held this call and ${action === "decline" ? "the owner declined" : action === "cancel" ? "the owner cancelled" : "the server exited"}: it did not run.`);
            return;
          }
          const approved = this.o.guard.approve(this.o.sessionId, decision.tool, decision.code as string, null, true, "call");
          const again = approved.accepted ? this.o.guard.beforeToolCall(this.o.sessionId, { id: callId, tool: decision.tool, params: args }) : null;
          if (again?.verdict !== "allow") {
            this.toolError(id, `provenant held this call: the owner's answer could not be applied (${approved.message}); it did not run.`);
            return;
          }
          this.track({ kind: "output", id, callId, tool: decision.tool, params: args, roundTrip: "call" });
          this.send("server", JSON.stringify(raw));
        } catch (error) {
          this.o.logger.error(`mcp ${this.o.server}: failed applying the owner's answer`, error);
          this.send("client", errorResponse(id, INTERNAL_ERROR));
        }
      },
    });
    this.send("client", JSON.stringify({ jsonrpc: "2.0", id: elicitId, method: "elicitation/create", params: { message, requestedSchema: { type: "object", properties: {} } } }));
  }

  private onCancelled(params: unknown): Outcome {
    const requestId = params !== null && typeof params === "object" ? (params as { requestId?: unknown }).requestId : undefined;
    if (typeof requestId !== "string" && typeof requestId !== "number") return FORWARD;
    const awaited = this.awaiting.get(idKey(requestId));
    if (awaited !== undefined) {
      // The server never saw this call: the cancellation ends our wait for the owner, and needs no reply.
      awaited.abort();
      return CONSUMED;
    }
    const elicitId = this.waiting.get(idKey(requestId));
    if (elicitId === undefined) return FORWARD;
    // The server never saw this call: the cancellation ends our question to the owner instead.
    this.waiting.delete(idKey(requestId));
    this.asked.delete(elicitId);
    this.send("client", JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: elicitId, reason: "the tool call was cancelled" } }));
    return CONSUMED;
  }

  /** The request a bad server message may have answered gets an error, so the client does not wait forever. */
  private failOpenRequest(id: JsonRpcId): void {
    const key = idKey(id);
    if (this.open.delete(key)) this.send("client", errorResponse(id, INTERNAL_ERROR));
  }

  private track(request: OpenRequest): void {
    this.open.set(idKey(request.id), request);
    if (this.open.size > MAX_OUTSTANDING) {
      const [oldest] = this.open.values();
      if (oldest !== undefined) {
        this.o.logger.warn(`mcp ${this.o.server}: request ${JSON.stringify(oldest.id)} given up: over ${MAX_OUTSTANDING} requests the server has not answered`);
        this.failOpenRequest(oldest.id);
      }
    }
  }

  /**
   * MCP has no turns: every listing and call starts one, from the session's watermark (which
   * carries the taint of every earlier result, in this process or another sharing the workspace).
   * The client's user is the owner.
   */
  private startTurn(): void {
    this.o.guard.refreshSharedState();
    this.o.guard.beginTurn({ sessionId: this.o.sessionId, sender: { id: "mcp-client-user", isOwner: true }, provider: "mcp", text: "" });
  }

  private toolError(id: JsonRpcId, text: string): void {
    this.send("client", JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], isError: true, ...(this.resultTypes ? { resultType: "complete" } : {}) } }));
  }

  private reply(side: "client" | "server", line: string): void {
    this.send(side, line);
  }

  private send(to: "client" | "server", line: string | Buffer): void {
    if (to === "client") this.o.toClient(line);
    else this.o.toServer(line);
  }
}

/** Whether a request carries the per-request envelope of protocol revision 2026-07-28, which names the revision. */
function namesRevision(params: unknown): boolean {
  if (params === null || typeof params !== "object") return false;
  const meta = (params as { _meta?: unknown })._meta;
  return meta !== null && typeof meta === "object" && typeof (meta as Record<string, unknown>)["io.modelcontextprotocol/protocolVersion"] === "string";
}

function declaresElicitation(params: unknown): boolean {
  if (params === null || typeof params !== "object") return false;
  const capabilities = (params as { capabilities?: unknown }).capabilities;
  if (capabilities === null || typeof capabilities !== "object") return false;
  const elicitation = (capabilities as { elicitation?: unknown }).elicitation;
  if (elicitation === null || typeof elicitation !== "object") return false;
  // A client that declares only URL-mode elicitation cannot show our form.
  const modes = elicitation as { form?: unknown; url?: unknown };
  return modes.form !== undefined || modes.url === undefined;
}

function elicitationAction(message: Extract<JsonRpcMessage, { kind: "response" }>): "accept" | "decline" | "cancel" | "error" {
  if (message.error !== undefined) return "error";
  const action = message.result !== null && typeof message.result === "object" ? (message.result as { action?: unknown }).action : undefined;
  return action === "accept" || action === "decline" || action === "cancel" ? action : "error";
}

/** A listing request that asks for no cursor starts a listing from its first page. */
function isFirstPage(params: unknown): boolean {
  return params === null || typeof params !== "object" || (params as { cursor?: unknown }).cursor === undefined;
}

/** A listing page with no next cursor is its listing's last. */
function isLastPage(result: unknown): boolean {
  const cursor = (result as { nextCursor?: unknown }).nextCursor;
  return cursor === undefined || cursor === null;
}

/** The `taskId` of a task object or of a request's params, when it is a string. */
function taskIdOf(value: unknown): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const taskId = (value as { taskId?: unknown }).taskId;
  return typeof taskId === "string" ? taskId : null;
}

function toolCallParams(params: unknown): { name: string; args: Readonly<Record<string, unknown>> } | null {
  if (params === null || typeof params !== "object" || Array.isArray(params)) return null;
  const p = params as Record<string, unknown>;
  if (typeof p.name !== "string" || p.name === "") return null;
  const args = Object.hasOwn(p, "arguments") ? p.arguments : undefined;
  if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) return null;
  return { name: p.name, args: (args ?? {}) as Record<string, unknown> };
}

/**
 * A tool result with what the guard did after the call (a signed file it put back) told beside the
 * server's content; an error or a result without a content list is forwarded as it is.
 */
function withNotice(message: Extract<JsonRpcMessage, { kind: "response" }>, notice: string): Outcome {
  const result = message.result;
  if (message.error !== undefined || result === null || typeof result !== "object" || Array.isArray(result)) return FORWARD;
  const content = (result as { content?: unknown }).content;
  if (!Array.isArray(content)) return FORWARD;
  return { kind: "replace", value: { ...message.raw, result: { ...result, content: [...content, { type: "text", text: notice }] } } };
}
