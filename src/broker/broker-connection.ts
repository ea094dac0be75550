import { statSync } from "node:fs";
import type { Socket } from "node:net";
import { isAbsolute } from "node:path";
import { checkArgs } from "./arg-rules.js";
import type { BrokerConfig, ToolConfig } from "./broker-config.js";
import type { BrokerLog } from "./broker-log.js";
import { callerArgv0, verifyCaller } from "./caller-verification.js";
import { buildChildEnv } from "./child-env.js";
import { type CredentialContext, fetchCredential } from "./credential-source.js";
import { encodeFrame } from "./frame.js";
import { FrameWriter } from "./frame-writer.js";
import { goJsonString } from "./go-json.js";
import { LineSplitter } from "./line-splitter.js";
import { type PeerCredentials, peerCredentials } from "./peer-credentials.js";
import type { ReplayCache } from "./replay-cache.js";
import { decodeMac, macMatches } from "./request-mac.js";
import { createToolConfigDir, removeToolConfigDir } from "./tool-config-dir.js";
import { ToolRun } from "./tool-run.js";
import { type AdminRequest, PROTOCOL_VERSION, type ProxyRequest, errorPayload, parseClientMessage, parseRequest, rawErrorReply } from "./wire.js";

/**
 * One client connection, from the request line to the last frame. Checks run in the spec's order:
 * peer UID (SO_PEERCRED), caller executable, protocol version, freshness, MAC (constant time), replay.
 * A client only ever sees the reference's generic error strings; the reasons go to the log.
 */
export interface ConnectionContext {
  readonly config: BrokerConfig;
  readonly secret: Buffer;
  readonly replay: ReplayCache;
  readonly log: BrokerLog;
  readonly now: () => number;
  readonly credentials: CredentialContext;
  readonly baseEnv: { readonly PATH: string; readonly HOME: string; readonly USER: string; readonly TERM: string };
  readonly version: string;
  readonly killGraceMs: number;
  /** Registers a running tool so the daemon can stop it on shutdown. */
  readonly track: (run: ToolRun) => void;
}

const FRESHNESS_SECONDS = 5;
const TIMESTAMP = /^[+-]?\d{1,19}$/;

type CheckFailure = { readonly error: string; readonly detail: string };

export function handleConnection(socket: Socket, ctx: ConnectionContext): void {
  const { config, log } = ctx;
  const proxy = config.proxy;
  const peer = peerCredentials(socket);
  const splitter = new LineSplitter(proxy.maxRequestSize);
  let stage: "header" | "starting" | "running" | "closed" = "header";
  let run: ToolRun | undefined;
  const queued: Buffer[] = [];
  let stdinOpen = true;
  let partialTimer: NodeJS.Timeout | undefined;
  let lifetimeTimer: NodeJS.Timeout | undefined;

  socket.on("error", (error) => log("info", "client_socket_error", { error: error.message }));

  const rawReply = (message: string): void => {
    stage = "closed";
    clearTimeout(headerTimer);
    socket.end(rawErrorReply(message));
  };

  const headerTimer = setTimeout(() => {
    if (stage !== "header") return;
    log("info", "request_read_timeout", { pid: peer?.pid });
    rawReply("request read timeout");
  }, proxy.readHeaderTimeoutMs);

  if (proxy.maxConnectionLifetimeMs > 0) {
    lifetimeTimer = setTimeout(() => {
      log("warn", "connection_lifetime_exceeded", { pid: peer?.pid });
      run?.abort();
      socket.destroy();
    }, proxy.maxConnectionLifetimeMs);
  }

  socket.on("close", () => {
    clearTimeout(headerTimer);
    clearTimeout(partialTimer);
    clearTimeout(lifetimeTimer);
    if (stage !== "closed") run?.abort();
    stage = "closed";
  });

  const onClientMessage = (line: Buffer): void => {
    if (line.length > proxy.maxStdinMessageSize) {
      // Split off together with the request line, before the smaller limit applied.
      log("warn", "client_message_too_large", { limit: proxy.maxStdinMessageSize });
      stopStdin();
      return;
    }
    const msg = parseClientMessage(line);
    if (msg === undefined) {
      // The reference's reader stops at the first bad message and closes stdin; so do we.
      log("warn", "bad_client_message", { bytes: line.length });
      stopStdin();
      return;
    }
    if (!stdinOpen && (msg.type === "stdin" || msg.type === "eof")) return;
    if (msg.type === "stdin") run?.writeStdin(msg.data);
    else if (msg.type === "eof") stopStdin();
    else if (msg.type === "signal") run?.signal(msg.signal);
    else log("info", "client_message_ignored", { reason: msg.reason });
  };

  const stopStdin = (): void => {
    stdinOpen = false;
    run?.endStdin();
  };

  socket.on("data", (chunk: Buffer) => {
    if (stage === "closed") return;
    const events = splitter.push(chunk);
    for (const ev of events) {
      if (stage === "header") {
        if (ev.kind === "overflow") {
          log("warn", "request_too_large", { pid: peer?.pid });
          rawReply("request too large");
          return;
        }
        clearTimeout(headerTimer);
        stage = "starting";
        splitter.setLimit(proxy.maxStdinMessageSize);
        socket.pause();
        void onRequest(ev.line);
      } else if (ev.kind === "overflow") {
        log("warn", "client_message_too_large", { limit: proxy.maxStdinMessageSize });
        stopStdin();
      } else if (stage === "starting") queued.push(ev.line);
      else if (stage === "running") onClientMessage(ev.line);
    }
    armPartialTimer();
  });

  // A message that has begun must be complete within read_message_timeout.
  const armPartialTimer = (): void => {
    clearTimeout(partialTimer);
    if (stage === "running" && splitter.partial && proxy.readMessageTimeoutMs > 0) {
      partialTimer = setTimeout(() => {
        log("warn", "client_message_timeout", {});
        stopStdin();
      }, proxy.readMessageTimeoutMs);
    }
  };

  socket.on("end", () => {
    if (stage === "header") {
      // The request may end at end of stream instead of a newline.
      const last = splitter.push(Buffer.from("\n"));
      const first = last[0];
      if (first === undefined) rawReply("empty request");
      else if (first.kind === "overflow") rawReply("request too large");
      else {
        clearTimeout(headerTimer);
        stage = "starting";
        stdinOpen = false;
        void onRequest(first.line);
      }
      return;
    }
    // No more client messages can come: the tool's stdin ends too.
    if (stage === "running") stopStdin();
    else stdinOpen = false;
  });

  const onRequest = async (line: Buffer): Promise<void> => {
    const req = parseRequest(line);
    if (req.kind === "refused") {
      log("info", "request_refused", { reason: req.message, pid: peer?.pid });
      rawReply(req.message);
      return;
    }
    if (req.kind === "admin") {
      handleAdmin(req);
      return;
    }
    await handleProxy(req);
  };

  const authenticate = (
    fields: { tool: string; args: readonly string[] | null; cwd: string; env: Readonly<Record<string, string>> | null },
    req: { version: number; timestamp: string; hmac: string; nonce: string },
  ): CheckFailure | undefined => {
    const creds: PeerCredentials | undefined = peer;
    if (creds === undefined) return { error: "failed to verify caller", detail: "SO_PEERCRED unavailable" };
    if (creds.uid !== proxy.allowedUid) return { error: "unauthorized caller", detail: `peer uid ${creds.uid}` };
    const caller = verifyCaller(creds.pid, proxy.allowedCallers, config.denyUnverifiedCallerExe);
    if (!caller.ok) return { error: caller.error, detail: caller.detail };
    if (req.version !== PROTOCOL_VERSION) return { error: "protocol version mismatch", detail: `version ${req.version}` };
    if (!TIMESTAMP.test(req.timestamp)) return { error: "authentication failed", detail: "malformed timestamp" };
    const skew = Math.abs(Math.floor(ctx.now() / 1000) - Number(req.timestamp));
    if (!(skew <= FRESHNESS_SECONDS)) return { error: "authentication failed", detail: `timestamp skew ${skew}s` };
    const mac = decodeMac(req.hmac);
    if (mac === undefined) return { error: "authentication failed", detail: "malformed hmac" };
    if (!macMatches(ctx.secret, { timestamp: req.timestamp, nonce: req.nonce, ...fields }, mac)) {
      return { error: "authentication failed", detail: "hmac mismatch" };
    }
    const verdict = ctx.replay.admit(mac, creds.uid, ctx.now());
    if (verdict === "replayed") return { error: "authentication failed", detail: "replayed request" };
    if (verdict === "full") return { error: "authentication failed", detail: "replay cache full" };
    return undefined;
  };

  const handleAdmin = (req: AdminRequest): void => {
    const failure = authenticate({ tool: `admin:${req.admin}`, args: null, cwd: "", env: null }, req);
    if (failure !== undefined) {
      log("warn", "admin_refused", { reason: failure.detail, pid: peer?.pid });
      rawReply(failure.error);
      return;
    }
    if (req.admin === "list") {
      const tools = [...config.tools.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
      const body = tools.map((t) => `${goJsonString(t.name)}:{"binary":${goJsonString(t.binary)},"mode":${goJsonString(t.mode)}}`).join(",");
      stage = "closed";
      socket.end(`{"tools":{${body}},"version":${goJsonString(ctx.version)}}`);
      log("info", "admin_list", { pid: peer?.pid });
      return;
    }
    if (req.admin === "check") {
      const pid = peer?.pid ?? 0;
      const argv0 = callerArgv0(pid);
      if (proxy.allowedCallers.length === 0 || (argv0 !== "provenant-wrap" && argv0 !== "claw-wrap")) {
        log("warn", "admin_check_refused", { argv0, pid });
        rawReply("unauthorized caller");
        return;
      }
      void adminCheck();
      return;
    }
    log("info", "unknown_admin_command", { pid: peer?.pid });
    rawReply("unknown admin command");
  };

  const adminCheck = async (): Promise<void> => {
    const names = [...config.credentials.keys()].sort();
    const parts: string[] = [];
    for (const name of names) {
      try {
        const value = await fetchCredential(config.credentials.get(name) as string, ctx.credentials);
        const preview = value.length >= 12 ? `${value.slice(0, 2)}.....${value.slice(-2)}` : ".....";
        parts.push(`${goJsonString(name)}:{"preview":${goJsonString(preview)},"status":"ok"}`);
      } catch (error) {
        log("warn", "credential_check_failed", { credential: name, error: (error as Error).message });
        parts.push(`${goJsonString(name)}:{"status":"failed"}`);
      }
    }
    stage = "closed";
    socket.end(`{"credentials":{${parts.join(",")}}}`);
  };

  const handleProxy = async (req: ProxyRequest): Promise<void> => {
    const writer = new FrameWriter(socket, proxy.writeTimeoutMs, () => {
      log("warn", "client_write_timeout", { pid: peer?.pid });
      run?.abort();
      socket.destroy();
    });
    const refuse = (message: string, detail: string, fields: Record<string, string | number> = {}): void => {
      log("warn", "request_refused", { reason: detail, pid: peer?.pid, ...fields });
      stage = "closed";
      writer.end(encodeFrame(errorPayload(message)));
    };
    const failure = authenticate(req, req);
    if (failure !== undefined) return refuse(failure.error, failure.detail);
    const tool = config.tools.get(req.tool);
    if (tool === undefined) return refuse("unknown tool", "unknown tool", { tool: req.tool });
    const args = req.args ?? [];
    const verdict = checkArgs(args, tool.mode, tool.blockedArgs, tool.allowedArgs);
    if (!verdict.allowed) return refuse(`blocked: ${verdict.message}`, "arguments blocked", { tool: tool.name });
    if (!isAbsolute(req.cwd) || !isDirectory(req.cwd)) return refuse("invalid working directory", "bad cwd", { tool: tool.name });
    if (args.some((a) => a.includes("\0"))) return refuse("failed to start tool", "NUL byte in arguments", { tool: tool.name });

    let configDir: string | undefined;
    let env: Record<string, string>;
    try {
      const creds = await resolveCredentials(tool, ctx);
      if (tool.configFile !== undefined) configDir = createToolConfigDir(proxy.tempDir, tool.configFile, creds.template);
      const built = buildChildEnv({
        base: ctx.baseEnv,
        credentials: creds.env,
        forced: tool.forcedEnv,
        requested: req.env,
        ...(configDir === undefined ? {} : { configHome: configDir }),
      });
      if (built.dropped.length > 0) log("warn", "request_env_dropped", { tool: tool.name, names: built.dropped.join(",") });
      env = built.env;
    } catch (error) {
      if (configDir !== undefined) removeToolConfigDir(configDir);
      return refuse("internal error", (error as Error).message, { tool: tool.name });
    }
    if (stage === "closed") {
      if (configDir !== undefined) removeToolConfigDir(configDir);
      return;
    }
    run = new ToolRun(
      {
        binary: tool.binary,
        args,
        cwd: req.cwd,
        env,
        timeoutMs: tool.timeoutMs,
        maxOutputSize: proxy.maxOutputSize,
        killGraceMs: ctx.killGraceMs,
      },
      writer,
      log,
      (blocked) => (blocked ? socket.pause() : socket.resume()),
    );
    const started = await run.start();
    if (!started) {
      if (configDir !== undefined) removeToolConfigDir(configDir);
      run = undefined;
      return refuse("failed to start tool", "spawn failed", { tool: tool.name });
    }
    ctx.track(run);
    void run.ended.then(() => {
      if (configDir !== undefined) removeToolConfigDir(configDir);
      stage = "closed";
    });
    // The client may have gone while the tool was starting (the run was aborted then).
    if (socket.destroyed) return;
    log("info", "tool_started", { tool: tool.name, pid: peer?.pid, args: args.length });
    stage = "running";
    for (const line of queued.splice(0)) onClientMessage(line);
    if (!stdinOpen) run.endStdin();
    armPartialTimer();
    socket.resume();
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function resolveCredentials(
  tool: ToolConfig,
  ctx: ConnectionContext,
): Promise<{ env: Map<string, string>; template: Map<string, string> }> {
  const cache = new Map<string, Promise<string>>();
  const get = (name: string): Promise<string> => {
    let p = cache.get(name);
    if (p === undefined) {
      const source = ctx.config.credentials.get(name);
      p = source === undefined ? Promise.reject(new Error(`unknown credential ${name}`)) : fetchCredential(source, ctx.credentials);
      cache.set(name, p);
    }
    return p;
  };
  const env = new Map<string, string>();
  const template = new Map<string, string>();
  await Promise.all([
    ...Object.entries(tool.env).map(async ([envVar, name]) => env.set(envVar, await get(name))),
    ...(tool.configFile?.credentials ?? []).map(async (name) => template.set(name, await get(name))),
  ]);
  return { env, template };
}
