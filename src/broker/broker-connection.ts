import type { Socket } from "node:net";
import { isAbsolute } from "node:path";
import { checkArgs } from "./arg-rules.js";
import type { BrokerConfig, ToolConfig } from "./broker-config.js";
import type { BrokerLog } from "./broker-log.js";
import { callerArgv0, callerExe, verifyCaller } from "./caller-verification.js";
import { buildChildEnv } from "./child-env.js";
import { type CredentialContext, fetchCredential } from "./credential-source.js";
import { encodeFrame } from "./frame.js";
import { FrameWriter } from "./frame-writer.js";
import { goJsonString } from "./go-json.js";
import { LineSplitter } from "./line-splitter.js";
import { peerCredentials } from "./peer-credentials.js";
import type { ReplayCache } from "./replay-cache.js";
import { RequestScanner } from "./request-scanner.js";
import { decodeMac, macMatches } from "./request-mac.js";
import { type Sender, SenderReader } from "./sender-reader.js";
import { createToolConfigDir, removeToolConfigDir } from "./tool-config-dir.js";
import { ToolRun } from "./tool-run.js";
import { type AdminRequest, PROTOCOL_VERSION, type ProxyRequest, errorPayload, parseClientMessage, parseRequest, rawErrorReply } from "./wire.js";
import { isDirectory } from "../state/file-kind.js";

/**
 * One client connection, from the request to the last frame. The peer that connected is checked
 * before a byte is read (SO_PEERCRED: UID and caller executable). Every byte is then read with the
 * credentials of the process that wrote it (see SenderReader): the request must come from one process,
 * and that process, not the one that connected, is the caller the checks run on, in the spec's order:
 * UID, caller executable, protocol version, freshness, MAC (constant time), replay. Messages after the
 * request must come from that same process. A client only ever sees the reference's generic error
 * strings; the reasons go to the log.
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
  const { config } = ctx;
  const proxy = config.proxy;
  const peer = peerCredentials(socket);
  const scanner = new RequestScanner(proxy.maxRequestSize);
  const splitter = new LineSplitter(proxy.maxStdinMessageSize);
  let stage: "header" | "starting" | "running" | "closed" = "header";
  let run: ToolRun | undefined;
  let requestSender: Sender | undefined;
  const queued: Buffer[] = [];
  let stdinOpen = true;
  let readEnded = false;
  let writeFinished = false;
  let messageTimer: NodeJS.Timeout | undefined;
  let lifetimeTimer: NodeJS.Timeout | undefined;
  let lingerTimer: NodeJS.Timeout | undefined;

  // The same fields on every record of this connection (see broker-log.ts).
  const who = { pid: peer?.pid ?? null, exe: peer === undefined ? null : (callerExe(peer.pid) ?? null), tool: null as string | null };
  const log: BrokerLog = (level, event, fields = {}) =>
    ctx.log(level, event, { caller_pid: who.pid, caller_exe: who.exe, tool: who.tool, tool_pgid: run?.pgid ?? null, ...fields });

  socket.on("error", (error) => log("info", "client_socket_error", { error: error.message }));

  // The connection closes once both sides are done: the client has shut down its side and everything
  // written has been handed to the kernel. A client that never shuts down is cut after a grace period.
  const maybeDestroy = (): void => {
    if (readEnded && writeFinished) socket.destroy();
  };
  socket.once("finish", () => {
    writeFinished = true;
    stage = "closed";
    // Whatever the client still sends is read and dropped until it shuts down its side.
    reader?.resume();
    maybeDestroy();
    if (!socket.destroyed) lingerTimer = setTimeout(() => socket.destroy(), proxy.readHeaderTimeoutMs);
  });

  const rawReply = (message: string): void => {
    stage = "closed";
    clearTimeout(headerTimer);
    socket.end(rawErrorReply(message));
  };

  const headerTimer = setTimeout(() => {
    if (stage !== "header") return;
    log("info", "request_read_timeout", { received: scanner.received });
    rawReply("request read timeout");
  }, proxy.readHeaderTimeoutMs);

  if (proxy.maxConnectionLifetimeMs > 0) {
    lifetimeTimer = setTimeout(() => {
      log("warn", "connection_lifetime_exceeded", {});
      run?.abort();
      socket.destroy();
    }, proxy.maxConnectionLifetimeMs);
  }

  socket.on("close", () => {
    clearTimeout(headerTimer);
    clearTimeout(messageTimer);
    clearTimeout(lifetimeTimer);
    clearTimeout(lingerTimer);
    reader?.close();
    if (stage !== "closed") run?.abort();
    stage = "closed";
  });

  const stopStdin = (): void => {
    stdinOpen = false;
    clearTimeout(messageTimer);
    run?.endStdin();
  };

  const onClientMessage = (line: Buffer): void => {
    if (line.length > proxy.maxStdinMessageSize) {
      // Split off together with the request, before the smaller limit applied.
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

  // read_message_timeout is a deadline: it starts when a message's first byte arrives and is not moved
  // by later bytes of the same message, so a message dribbled a byte at a time still ends on time.
  const onMessageBytes = (bytes: Buffer): void => {
    const events = splitter.push(bytes);
    for (const ev of events) {
      if (ev.kind === "overflow") {
        log("warn", "client_message_too_large", { limit: proxy.maxStdinMessageSize });
        stopStdin();
      } else if (stage === "starting") queued.push(ev.line);
      else if (stage === "running") onClientMessage(ev.line);
    }
    if (!splitter.partial || !stdinOpen) {
      clearTimeout(messageTimer);
      messageTimer = undefined;
    } else if ((messageTimer === undefined || events.length > 0) && proxy.readMessageTimeoutMs > 0) {
      clearTimeout(messageTimer);
      messageTimer = setTimeout(() => {
        log("warn", "client_message_timeout", { limit_ms: proxy.readMessageTimeoutMs });
        stopStdin();
      }, proxy.readMessageTimeoutMs);
    }
  };

  const foreignWriter = (sender: Sender | undefined, where: string): void => {
    log("warn", "foreign_writer", { where, sender_pid: sender?.pid ?? null, sender_uid: sender?.uid ?? null });
  };

  const onBytes = (bytes: Buffer, sender: Sender | undefined): void => {
    if (stage === "closed") return;
    if (stage === "header") {
      if (sender === undefined) {
        foreignWriter(sender, "request");
        rawReply("failed to verify caller");
        return;
      }
      if (requestSender === undefined) {
        requestSender = sender;
        if (sender.pid !== who.pid) {
          who.pid = sender.pid;
          who.exe = callerExe(sender.pid) ?? null;
        }
      } else if (sender.pid !== requestSender.pid || sender.uid !== requestSender.uid) {
        // One request, one author: bytes from two processes cannot be attributed to either.
        foreignWriter(sender, "request");
        rawReply("unauthorized caller");
        return;
      }
      const scan = scanner.push(bytes);
      if (scan.kind === "partial") return;
      if (scan.kind === "overflow") {
        log("warn", "request_too_large", { limit: proxy.maxRequestSize });
        rawReply("request too large");
        return;
      }
      clearTimeout(headerTimer);
      stage = "starting";
      reader?.pause();
      if (scan.rest.length > 0) onMessageBytes(scan.rest);
      void onRequest(scan.request);
      return;
    }
    if (sender === undefined || requestSender === undefined || sender.pid !== requestSender.pid || sender.uid !== requestSender.uid) {
      // Another process is writing on the caller's connection (a socket passed on or inherited): it
      // could steer the tool through stdin or signals. Stop the tool and drop the connection.
      foreignWriter(sender, "message");
      run?.abort();
      stage = "closed";
      socket.destroy();
      return;
    }
    onMessageBytes(bytes);
  };

  const onEnd = (): void => {
    readEnded = true;
    if (stage === "header") {
      if (scanner.received === 0) {
        log("info", "empty_request", {});
        rawReply("empty request");
      } else {
        // The request may end at end of stream instead of with its closing brace or newline.
        clearTimeout(headerTimer);
        stage = "starting";
        stdinOpen = false;
        void onRequest(scanner.takePartial());
      }
    } else if (stage === "running") stopStdin();
    else stdinOpen = false;
    maybeDestroy();
  };

  const onRequest = async (bytes: Buffer): Promise<void> => {
    const req = parseRequest(bytes);
    if (req.kind === "refused") {
      log("info", "request_refused", { reason: req.message });
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
    const sender = requestSender;
    if (sender === undefined) return { error: "failed to verify caller", detail: "request sender unknown" };
    if (sender.uid !== proxy.allowedUid) return { error: "unauthorized caller", detail: `sender uid ${sender.uid}` };
    const caller = verifyCaller(sender.pid, proxy.allowedCallers, config.denyUnverifiedCallerExe);
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
    const verdict = ctx.replay.admit(mac, sender.uid, ctx.now());
    if (verdict === "replayed") return { error: "authentication failed", detail: "replayed request" };
    if (verdict === "full") return { error: "authentication failed", detail: "replay cache full" };
    return undefined;
  };

  const handleAdmin = (req: AdminRequest): void => {
    who.tool = `admin:${req.admin}`;
    const failure = authenticate({ tool: `admin:${req.admin}`, args: null, cwd: "", env: null }, req);
    if (failure !== undefined) {
      log("warn", "admin_refused", { reason: failure.detail });
      rawReply(failure.error);
      return;
    }
    if (req.admin === "list") {
      const tools = [...config.tools.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
      const body = tools.map((t) => `${goJsonString(t.name)}:{"binary":${goJsonString(t.binary)},"mode":${goJsonString(t.mode)}}`).join(",");
      stage = "closed";
      socket.end(`{"tools":{${body}},"version":${goJsonString(ctx.version)}}`);
      log("info", "admin_list", {});
      return;
    }
    if (req.admin === "check") {
      const argv0 = callerArgv0(requestSender?.pid ?? 0);
      if (proxy.allowedCallers.length === 0 || (argv0 !== "provenant-wrap" && argv0 !== "claw-wrap")) {
        log("warn", "admin_check_refused", { argv0: argv0 ?? null });
        rawReply("unauthorized caller");
        return;
      }
      void adminCheck();
      return;
    }
    log("info", "unknown_admin_command", {});
    rawReply("unknown admin command");
  };

  const adminCheck = async (): Promise<void> => {
    const names = [...config.credentials.keys()].sort();
    const parts: string[] = [];
    let failed = 0;
    for (const name of names) {
      try {
        const value = await fetchCredential(config.credentials.get(name) as string, ctx.credentials);
        const preview = value.length >= 12 ? `${value.slice(0, 2)}.....${value.slice(-2)}` : ".....";
        parts.push(`${goJsonString(name)}:{"preview":${goJsonString(preview)},"status":"ok"}`);
      } catch (error) {
        failed++;
        log("warn", "credential_check_failed", { credential: name, error: (error as Error).message });
        parts.push(`${goJsonString(name)}:{"status":"failed"}`);
      }
    }
    stage = "closed";
    socket.end(`{"credentials":{${parts.join(",")}}}`);
    log("info", "admin_check", { credentials: names.length, failed });
  };

  const handleProxy = async (req: ProxyRequest): Promise<void> => {
    const writer = new FrameWriter(socket, proxy.writeTimeoutMs, () => {
      log("warn", "client_write_timeout", {});
      run?.abort();
      socket.destroy();
    });
    const refuse = (message: string, detail: string): void => {
      log("warn", "request_refused", { reason: detail });
      stage = "closed";
      writer.end(encodeFrame(errorPayload(message)));
    };
    const failure = authenticate(req, req);
    if (failure !== undefined) return refuse(failure.error, failure.detail);
    const tool = config.tools.get(req.tool);
    if (tool === undefined) return refuse("unknown tool", `unknown tool ${JSON.stringify(req.tool)}`);
    who.tool = tool.name;
    const args = req.args ?? [];
    const verdict = checkArgs(args, tool.mode, tool.blockedArgs, tool.allowedArgs);
    if (!verdict.allowed) return refuse(`blocked: ${verdict.message}`, "arguments blocked");
    if (!isAbsolute(req.cwd)) return refuse("invalid working directory", "bad cwd");
    // A tool with working_dir runs there: the request's directory is not even looked at.
    const cwd = tool.workingDir ?? req.cwd;
    if (!isDirectory(cwd)) return refuse("invalid working directory", tool.workingDir === undefined ? "bad cwd" : `working_dir ${tool.workingDir} is not a directory`);
    if (args.some((a) => a.includes("\0"))) return refuse("failed to start tool", "NUL byte in arguments");

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
        ...(tool.allowedEnv === undefined ? {} : { allowed: tool.allowedEnv }),
        ...(configDir === undefined ? {} : { configHome: configDir }),
      });
      if (built.dropped.length > 0) log("warn", "request_env_dropped", { names: built.dropped.join(",") });
      env = built.env;
    } catch (error) {
      if (configDir !== undefined) removeToolConfigDir(configDir);
      return refuse("internal error", (error as Error).message);
    }
    if (stage === "closed") {
      if (configDir !== undefined) removeToolConfigDir(configDir);
      return;
    }
    run = new ToolRun(
      {
        binary: tool.binary,
        args,
        cwd,
        env,
        timeoutMs: tool.timeoutMs,
        maxOutputSize: proxy.maxOutputSize,
        killGraceMs: ctx.killGraceMs,
      },
      writer,
      log,
      (blocked) => (blocked ? reader?.pause() : reader?.resume()),
    );
    const started = await run.start();
    if (!started) {
      if (configDir !== undefined) removeToolConfigDir(configDir);
      run = undefined;
      return refuse("failed to start tool", "spawn failed");
    }
    ctx.track(run);
    void run.ended.then(() => {
      if (configDir !== undefined) removeToolConfigDir(configDir);
      stage = "closed";
    });
    // The client may have gone while the tool was starting (the run was aborted then).
    if (socket.destroyed) return;
    log("info", "tool_started", { args: args.length });
    stage = "running";
    for (const line of queued.splice(0)) onClientMessage(line);
    if (!stdinOpen) run.endStdin();
    reader?.resume();
  };

  // The peer that connected is checked before anything is read: a process of another UID, or one
  // not on the caller allow-list, is answered at once and never gets to send a request.
  const early = ((): CheckFailure | undefined => {
    if (peer === undefined) return { error: "failed to verify caller", detail: "SO_PEERCRED unavailable" };
    if (peer.uid !== proxy.allowedUid) return { error: "unauthorized caller", detail: `peer uid ${peer.uid}` };
    const caller = verifyCaller(peer.pid, proxy.allowedCallers, config.denyUnverifiedCallerExe);
    return caller.ok ? undefined : { error: caller.error, detail: caller.detail };
  })();
  if (early !== undefined) {
    log("warn", "peer_refused", { reason: early.detail });
    rawReply(early.error);
  }
  const reader = SenderReader.open(socket, {
    data: onBytes,
    end: onEnd,
    error: (errno) => {
      log("info", "client_socket_error", { errno });
      run?.abort();
      socket.destroy();
    },
  });
  if (reader === undefined && early === undefined) {
    log("warn", "peer_refused", { reason: "cannot read sender credentials" });
    rawReply("failed to verify caller");
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
