import { chmodSync, lstatSync, mkdirSync, readFileSync, unlinkSync } from "node:fs";
import { type Server, type Socket, createServer } from "node:net";
import { userInfo } from "node:os";
import { dirname } from "node:path";
import type { BrokerConfig } from "./broker-config.js";
import { type BrokerLog, rateLimitLog, stderrLog } from "./broker-log.js";
import { type ConnectionContext, handleConnection } from "./broker-connection.js";
import { ReplayCache } from "./replay-cache.js";
import { provisionSecret } from "./secret-file.js";
import { enableListenerCredentials } from "./sender-reader.js";
import { ensurePrivateRoot, sweepStaleConfigDirs } from "./tool-config-dir.js";
import type { ToolRun } from "./tool-run.js";
import { rawErrorReply } from "./wire.js";

/**
 * The broker daemon: provisions a fresh secret, listens on a 0600 Unix socket, and serves each
 * connection with handleConnection. Connections beyond `max_connections` get the raw `server busy`
 * reply and are closed at once.
 */
export interface BrokerDaemonOptions {
  readonly config: BrokerConfig;
  readonly log?: BrokerLog;
  /** Wall clock in milliseconds, injectable for tests of the freshness window. */
  readonly now?: () => number;
  /** SIGTERM-to-SIGKILL grace for a tool's process group (the spec's 5 s). */
  readonly killGraceMs?: number;
}

export interface BrokerDaemon {
  readonly socketPath: string;
  readonly secretFile: string;
  readonly activeConnections: number;
  close(): Promise<void>;
}

export const KILL_GRACE_MS = 5_000;
const BUSY_LINGER_MS = 1_000;

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

function clearStaleSocket(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (!st.isSocket()) throw new Error(`socket path ${path} exists and is not a socket`);
  unlinkSync(path);
}

export async function startBrokerDaemon(options: BrokerDaemonOptions): Promise<BrokerDaemon> {
  const { config } = options;
  const proxy = config.proxy;
  // Repeated records are rate-limited: a peer reconnecting in a loop must not flood the log.
  const limited = rateLimitLog(options.log ?? stderrLog);
  const log = limited.log;
  ensurePrivateRoot(proxy.tempDir);
  const swept = sweepStaleConfigDirs(proxy.tempDir);
  if (swept > 0) log("info", "stale_config_dirs_removed", { count: swept });
  const secret = provisionSecret(proxy.secretFile);
  if (proxy.allowedCallers.length === 0) log("warn", "caller_allow_list_empty", { note: "any executable of the allowed uid may connect" });

  const user = userInfo();
  const runs = new Set<ToolRun>();
  const ctx: ConnectionContext = {
    config,
    secret,
    replay: new ReplayCache(proxy.replayCacheTtlMs, proxy.replayCacheMaxEntries),
    log,
    now: options.now ?? Date.now,
    credentials: { passBinary: proxy.passBinary, processEnv: process.env, ...(proxy.envFile === undefined ? {} : { envFile: proxy.envFile }) },
    baseEnv: {
      PATH: process.env["PATH"] || "/usr/local/bin:/usr/bin:/bin",
      HOME: process.env["HOME"] || user.homedir,
      USER: process.env["USER"] || user.username,
      TERM: process.env["TERM"] || "dumb",
    },
    version: packageVersion(),
    killGraceMs: options.killGraceMs ?? KILL_GRACE_MS,
    track: (run) => {
      runs.add(run);
      void run.ended.then(() => runs.delete(run));
    },
  };

  mkdirSync(dirname(proxy.socketPath), { recursive: true, mode: 0o755 });
  clearStaleSocket(proxy.socketPath);
  let active = 0;
  const sockets = new Set<Socket>();
  // pauseOnConnect: Node must never read a client itself, or the writers' credentials are lost (see
  // SenderReader, which reads every connection that is served).
  const server: Server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    if (active >= proxy.maxConnections) {
      log("warn", "server_busy", { limit: proxy.maxConnections, caller_pid: null, caller_exe: null, tool: null, tool_pgid: null });
      socket.on("error", () => undefined);
      // What a refused client sent is read and dropped (closing on unread bytes would reset the
      // connection before the client reads the reply); it has a moment to close, then is cut.
      socket.on("data", () => undefined);
      socket.on("end", () => socket.destroy());
      // A listener alone does not start reading a socket created paused.
      socket.resume();
      socket.end(rawErrorReply("server busy"));
      setTimeout(() => socket.destroy(), BUSY_LINGER_MS).unref();
      return;
    }
    active++;
    socket.once("close", () => active--);
    handleConnection(socket, ctx);
  });
  server.maxConnections = proxy.maxConnections * 4;
  // The socket file must never exist with a wider mode, not even between bind and chmod.
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(proxy.socketPath, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } finally {
    process.umask(previous);
  }
  enableListenerCredentials(server);
  chmodSync(proxy.socketPath, 0o600);
  log("info", "daemon_listening", { socket: proxy.socketPath, tools: config.tools.size });

  return {
    socketPath: proxy.socketPath,
    secretFile: proxy.secretFile,
    get activeConnections() {
      return active;
    },
    async close() {
      log("info", "daemon_stopping", { running_tools: runs.size, connections: sockets.size });
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const run of runs) run.abort();
        for (const s of sockets) s.destroy();
      });
      await Promise.all([...runs].map((r) => r.ended));
      try {
        unlinkSync(proxy.socketPath);
      } catch {
        // Already gone.
      }
      log("info", "daemon_stopped", {});
      limited.flush();
    },
  };
}
