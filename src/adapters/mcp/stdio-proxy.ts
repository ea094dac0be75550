import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../../core/logger.js";
import { join } from "node:path";
import { Guard } from "../../guard.js";
import { DeferredAuditSink } from "../../ledger/deferred-sink.js";
import { LedgerLockedError, openLedger, type Ledger } from "../../ledger/index.js";
import { PendingApprovalStore } from "../../state/pending-approval-store.js";
import { ToolPinStore } from "../../state/tool-pin-store.js";
import { HttpUpstream } from "./http-upstream.js";
import { LineSplitter } from "./line-splitter.js";
import { listingPinStores } from "./listed-content.js";
import { McpProxy } from "./mcp-proxy.js";

/** A 10 MB result is ordinary; past this a line is dropped (with an error to its sender) rather than held in memory. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/**
 * An owner answers a held call from another terminal, which takes longer than answering in chat:
 * unless the configuration says otherwise, codes issued by the proxy live ten minutes.
 */
export const MCP_APPROVAL_TTL_SECONDS = 600;

/** The server behind the proxy: a command run as its child over stdio, or a remote one's URL. */
export type ProxiedServer = { readonly command: string; readonly args: readonly string[] } | { readonly url: URL; readonly headers: Readonly<Record<string, string>> };

export interface StdioProxyOptions {
  readonly server: string;
  readonly upstream: ProxiedServer;
  readonly workspaceDir: string;
  /** The owner's configuration (the same file as every other front end's). */
  readonly config: unknown;
  readonly sessionId: string;
  readonly logger: Logger;
  readonly clientIn: Readable;
  readonly clientOut: Writable;
  /** How the owner's commands are spelled in messages (with `--workspace` when it is not the default). */
  readonly approveCommand: (code: string) => string;
  readonly acceptCommand: (tool: string) => string;
  readonly acceptInstructionsCommand?: string;
  readonly acceptListingsCommand?: string;
  readonly maxLineBytes?: number;
  /** False: never ask through elicitation (see McpProxyOptions.elicitation). */
  readonly elicitation?: boolean;
  /** False: leave every call to the client's own guard (see McpProxyOptions.decideCalls). */
  readonly decideCalls?: boolean;
}

/**
 * Runs the server behind the proxy until either side ends: a command as its child (resolves with
 * its exit code), or a remote server over HTTP (resolves with 0 when the client leaves).
 */
export function runStdioProxy(o: StdioProxyOptions): Promise<number> {
  const config = withProxyDefaults(o.config);
  const ledger = openProxyLedger(o.workspaceDir, o.server, o.logger);
  const audit = new DeferredAuditSink(ledger, (error) => o.logger.error("ledger append failed", error), Date.now);
  let guard: Guard;
  try {
    guard = Guard.open({ config, workspaceDir: o.workspaceDir, logger: o.logger, audit });
  } catch (error) {
    ledger.close();
    throw error;
  }
  let toServer: (line: Buffer | string) => void = () => undefined;
  const proxy = new McpProxy({
    server: o.server,
    guard,
    sessionId: o.sessionId,
    pins: new ToolPinStore(o.workspaceDir, o.server, (detail, movedTo) =>
      o.logger.error(`mcp ${o.server}: the tool pin file was unusable (${detail}); kept as ${movedTo}; every tool is held until the owner accepts it`),
    ),
    instructionPins: new ToolPinStore(
      o.workspaceDir,
      o.server,
      (detail, movedTo) => o.logger.error(`mcp ${o.server}: the instructions pin file was unusable (${detail}); kept as ${movedTo}; the server's instructions are withheld until the owner accepts them`),
      "instructions",
    ),
    ...(o.acceptInstructionsCommand !== undefined ? { acceptInstructionsCommand: o.acceptInstructionsCommand } : {}),
    listingPins: listingPinStores(o.workspaceDir, o.server, (kind, detail, movedTo) =>
      o.logger.error(`mcp ${o.server}: the ${kind} pin file was unusable (${detail}); kept as ${movedTo}; every entry listed is counted as the server's content until the owner accepts them`),
    ),
    ...(o.acceptListingsCommand !== undefined ? { acceptListingsCommand: o.acceptListingsCommand } : {}),
    approvals: new PendingApprovalStore(o.workspaceDir, (file, detail) => o.logger.warn(`approval store: ignoring ${file}: ${detail}`)),
    logger: o.logger,
    now: Date.now,
    randomId: () => randomBytes(12).toString("hex"),
    toClient: (line) => writeLine(o.clientOut, line),
    toServer: (line) => toServer(line),
    approveCommand: o.approveCommand,
    acceptCommand: o.acceptCommand,
    elicitation: o.elicitation !== false,
    decideCalls: o.decideCalls !== false,
  });
  const max = o.maxLineBytes ?? MAX_LINE_BYTES;
  const closed = () => {
    proxy.serverClosed();
    guard.close();
    audit.flush();
    ledger.close();
  };
  if ("url" in o.upstream) return runHttp(o, o.upstream, proxy, max, (f) => (toServer = f), closed);
  const { command, args } = o.upstream;
  const child = spawn(command, [...args], { stdio: ["pipe", "pipe", "inherit"] });
  const serverIn = child.stdin;
  const serverOut = child.stdout;
  toServer = (line) => {
    if (!serverIn.destroyed && !serverIn.writableEnded) writeLine(serverIn, line);
  };
  pump(o.clientIn, new LineSplitter(max), serverIn, (line) => proxy.fromClient(line), (bytes) => proxy.oversize("client", bytes), () => serverIn.end());
  let serverDone: () => void = () => undefined;
  const serverEnded = new Promise<void>((resolve) => (serverDone = resolve));
  pump(serverOut, new LineSplitter(max), o.clientOut, (line) => proxy.fromServer(line), (bytes) => proxy.oversize("server", bytes), () => serverDone());
  serverIn.on("error", (error) => o.logger.warn(`mcp ${o.server}: writing to the server failed: ${error.message}`));
  // The client is gone (a closed pipe): nothing can reach it any more, so the server goes too, and
  // nothing the server still writes is waited for (a pump paused on the dead pipe would never end),
  // nor anything more the client sends: the proxy finishes once the server has exited.
  o.clientOut.on("error", (error) => {
    o.logger.warn(`mcp ${o.server}: writing to the client failed (${error.message}); stopping the server`);
    serverDone();
    o.clientIn.destroy();
    child.kill("SIGTERM");
  });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onTerm = forward("SIGTERM");
  const onInt = forward("SIGINT");
  process.on("SIGTERM", onTerm);
  process.on("SIGINT", onInt);
  return new Promise<number>((resolve) => {
    let settled = false;
    const finish = (code: number) => {
      if (settled) return;
      settled = true;
      process.off("SIGTERM", onTerm);
      process.off("SIGINT", onInt);
      closed();
      resolve(code);
    };
    child.on("error", (error) => {
      o.logger.error(`mcp ${o.server}: could not run ${command}`, error);
      finish(127);
    });
    child.on("exit", (code, signal) => {
      if (signal !== null) o.logger.warn(`mcp ${o.server}: the server exited on ${signal}`);
      // Everything it wrote before exiting still reaches the client.
      void serverEnded.then(() => finish(code ?? 1));
    });
  });
}

/**
 * A remote server: the client's lines are POSTed to it, its messages written to the client. The
 * proxy ends when the client does (its input closes or its pipe breaks) or on a signal; the
 * server is then told the session ended.
 */
function runHttp(o: StdioProxyOptions, remote: { readonly url: URL; readonly headers: Readonly<Record<string, string>> }, proxy: McpProxy, max: number, connect: (send: (line: Buffer | string) => void) => void, closed: () => void): Promise<number> {
  const upstream = new HttpUpstream({
    server: o.server,
    url: remote.url,
    headers: remote.headers,
    logger: o.logger,
    maxMessageBytes: max,
    deliver: (line) => proxy.fromServer(line),
    oversize: (bytes) => proxy.oversize("server", bytes),
    ready: () => (o.clientOut.writableNeedDrain && !o.clientOut.destroyed ? new Promise<void>((resolve) => o.clientOut.once("drain", resolve)) : Promise.resolve()),
  });
  connect((line) => upstream.send(line));
  o.logger.info(`mcp ${o.server}: the remote server ${upstream.where}`);
  return new Promise<number>((resolve) => {
    let settled = false;
    const finish = (code: number) => {
      if (settled) return;
      settled = true;
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      void upstream.close().then(() => {
        closed();
        resolve(code);
      });
    };
    const onSignal = () => finish(0);
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
    o.clientOut.on("error", (error) => {
      o.logger.warn(`mcp ${o.server}: writing to the client failed (${error.message}); ending the session`);
      o.clientIn.destroy();
      finish(0);
    });
    pump(o.clientIn, new LineSplitter(max), null, (line) => proxy.fromClient(line), (bytes) => proxy.oversize("client", bytes), () => finish(0));
  });
}

/** Ledger files a server's proxies may write, one per live proxy; a slot whose proxy exited is reused. */
const LEDGER_SLOTS = 16;

/**
 * A ledger has one writer, and every proxy of a workspace is its own process: each writes
 * `.provenance/mcp-ledgers/<server>.jsonl`, or the next free `<server>-<n>.jsonl` when another
 * proxy of the same server (another client) holds that one.
 */
function openProxyLedger(workspaceDir: string, server: string, logger: Logger): Ledger {
  for (let slot = 1; ; slot++) {
    const path = join(workspaceDir, ".provenance", "mcp-ledgers", slot === 1 ? `${server}.jsonl` : `${server}-${slot}.jsonl`);
    try {
      return openLedger(path, { onTornTail: (tail) => logger.warn(`ledger ${path}: an interrupted append was cut off (${JSON.stringify(tail)})`) });
    } catch (error) {
      if (!(error instanceof LedgerLockedError) || slot >= LEDGER_SLOTS) throw error;
    }
  }
}

function withProxyDefaults(config: unknown): unknown {
  if (config === null || config === undefined) return { approvalTtlSeconds: MCP_APPROVAL_TTL_SECONDS };
  if (typeof config !== "object" || Array.isArray(config) || Object.hasOwn(config, "approvalTtlSeconds")) return config;
  return { ...(config as Record<string, unknown>), approvalTtlSeconds: MCP_APPROVAL_TTL_SECONDS };
}

const NEWLINE = Buffer.from("\n");

/** One write per message: a reader woken by the message without its newline would wait for a second wake-up. */
function writeLine(out: Writable, line: string | Buffer): void {
  out.write(typeof line === "string" ? `${line}\n` : Buffer.concat([line, NEWLINE]));
}

/** Lines from `source` to `handle`, pausing the source while `sink` (if any) is full, so memory stays bounded by one line. */
function pump(source: Readable, splitter: LineSplitter, sink: Writable | null, handle: (line: Buffer) => void, oversize: (bytes: number) => void, ended: () => void): void {
  const deliver = (events: ReturnType<LineSplitter["push"]>) => {
    for (const event of events) {
      if (event.kind === "line") handle(event.bytes);
      else oversize(event.bytes);
    }
  };
  source.on("data", (chunk: Buffer) => {
    deliver(splitter.push(chunk));
    if (sink !== null && sink.writableNeedDrain && !sink.destroyed) {
      source.pause();
      sink.once("drain", () => source.resume());
    }
  });
  source.on("end", () => {
    deliver(splitter.end());
    ended();
  });
  source.on("error", () => ended());
}
