import { rmSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { type CallResult, type ToolCall, signedRequestLine, startCall } from "../../src/broker/broker-client.js";
import { parseBrokerConfig } from "../../src/broker/broker-config.js";
import { type BrokerDaemon, startBrokerDaemon } from "../../src/broker/broker-daemon.js";
import type { LogFields, LogLevel } from "../../src/broker/broker-log.js";
import { readSecretFile } from "../../src/broker/secret-file.js";
import { tempDir } from "../temp-dirs.js";

export interface LogEntry {
  readonly level: LogLevel;
  readonly event: string;
  readonly fields: LogFields;
}

export interface Harness {
  readonly dir: string;
  readonly daemon: BrokerDaemon;
  readonly secret: Buffer;
  readonly logs: LogEntry[];
  run(call: ToolCall, stdin?: Buffer | string): Promise<RunOutcome>;
  close(): Promise<void>;
}

export interface RunOutcome {
  readonly result: CallResult;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
}

export interface HarnessOptions {
  readonly now?: () => number;
  readonly killGraceMs?: number;
}

/** A real daemon on a real Unix socket in a fresh directory, configured from a wrappers.yaml object. */
export async function startHarness(config: Record<string, unknown>, options: HarnessOptions = {}): Promise<Harness> {
  const dir = tempDir("provenant-broker-test-");
  const proxy = (config["proxy"] ?? {}) as Record<string, unknown>;
  const full = {
    ...config,
    proxy: { socket: join(dir, "secrets.sock"), hmac_secret_file: join(dir, "auth"), temp_dir: join(dir, "tmp"), ...proxy },
  };
  const logs: LogEntry[] = [];
  const daemon = await startBrokerDaemon({
    config: parseBrokerConfig(stringify(full)),
    log: (level, event, fields = {}) => logs.push({ level, event, fields }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
  });
  const secret = readSecretFile(daemon.secretFile);
  return {
    dir,
    daemon,
    secret,
    logs,
    run: (call, stdin) => runCall(daemon.socketPath, signedRequestLine(secret, call), stdin),
    close: async () => {
      await daemon.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sends one request line (signed or deliberately not) and collects everything that comes back. */
export async function runCall(socketPath: string, line: string, stdin?: Buffer | string): Promise<RunOutcome> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const call = startCall(socketPath, line, { onStdout: (c) => out.push(c), onStderr: (c) => err.push(c) });
  if (stdin !== undefined) {
    // One message per 64 KiB: a single message must stay under max_stdin_message_size.
    const bytes = Buffer.from(stdin);
    for (let off = 0; off < bytes.length; off += 64 * 1024) call.sendStdin(bytes.subarray(off, off + 64 * 1024));
  }
  call.endStdin();
  const result = await call.result;
  return { result, stdout: Buffer.concat(out), stderr: Buffer.concat(err) };
}

/** Writes the given pieces to the socket (pausing `gapMs` between them) and returns every byte received until close. */
export async function rawExchange(socketPath: string, pieces: readonly (string | Buffer)[], opts: { gapMs?: number; end?: boolean } = {}): Promise<Buffer> {
  const gapMs = opts.gapMs ?? 0;
  const { createConnection } = await import("node:net");
  return new Promise((resolve, reject) => {
    const s = createConnection({ path: socketPath, allowHalfOpen: true });
    const got: Buffer[] = [];
    s.on("data", (c: Buffer) => got.push(c));
    s.on("error", reject);
    s.on("end", () => s.end());
    s.on("close", () => resolve(Buffer.concat(got)));
    void (async () => {
      for (const p of pieces) {
        s.write(p);
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
      if (opts.end ?? true) s.end();
    })();
  });
}

/** Splits a framed reply into its JSON payloads. */
export function framesOf(buf: Buffer): unknown[] {
  const out: unknown[] = [];
  let off = 0;
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    out.push(JSON.parse(buf.subarray(off + 4, off + 4 + len).toString("utf8")));
    off += 4 + len;
  }
  return out;
}
