import { randomBytes } from "node:crypto";
import { type Socket, createConnection } from "node:net";
import { FrameDecoder } from "./frame.js";
import { signRequestMac } from "./request-mac.js";
import { EOF_MESSAGE, type ForwardedSignal, PROTOCOL_VERSION, parseResponse, signalMessage, stdinMessage } from "./wire.js";

/**
 * The wrapper's side of the protocol: sign a request, send it, forward stdin and signals, and hand
 * output chunks to the caller as their frames arrive. Used by provenant-wrap, the tests and the benches.
 */
export interface ToolCall {
  readonly tool: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface SignedRequestOptions {
  /** Seconds since the epoch; defaults to now. */
  readonly timestamp?: number;
  readonly nonce?: string;
}

export function signedRequestLine(secret: Uint8Array, call: ToolCall, options: SignedRequestOptions = {}): string {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = options.nonce ?? randomBytes(16).toString("hex");
  const env = call.env ?? {};
  const hmac = signRequestMac(secret, { timestamp, tool: call.tool, args: call.args, cwd: call.cwd, env, nonce });
  return `${JSON.stringify({ version: PROTOCOL_VERSION, tool: call.tool, args: call.args, cwd: call.cwd, timestamp, hmac, nonce, env })}\n`;
}

export function signedAdminLine(secret: Uint8Array, command: string, options: SignedRequestOptions = {}): string {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = options.nonce ?? randomBytes(16).toString("hex");
  const hmac = signRequestMac(secret, { timestamp, tool: `admin:${command}`, args: null, cwd: "", env: null, nonce });
  return `${JSON.stringify({ version: PROTOCOL_VERSION, admin: command, timestamp, hmac, nonce })}\n`;
}

export type CallResult =
  | { readonly kind: "done"; readonly exitCode: number; readonly timeout: boolean }
  | { readonly kind: "error"; readonly message: string }
  /** The daemon answered with raw JSON (refused before framing) or closed without a result. */
  | { readonly kind: "raw"; readonly text: string };

export interface CallHandlers {
  readonly onStdout?: (chunk: Buffer) => void;
  readonly onStderr?: (chunk: Buffer) => void;
}

export interface RunningCall {
  readonly result: Promise<CallResult>;
  readonly socket: Socket;
  sendStdin(data: Uint8Array): boolean;
  endStdin(): void;
  sendSignal(signal: ForwardedSignal): void;
}

// Reads land in one reused buffer (net.Socket's `onread`): allocating a Buffer per read costs more
// than everything else on the client's side of a large output.
const READ_BUFFER_BYTES = 256 * 1024;

export function startCall(socketPath: string, requestLine: string, handlers: CallHandlers = {}): RunningCall {
  const decoder = new FrameDecoder();
  const raw: Buffer[] = [];
  let framed: boolean | undefined;
  let settled: CallResult | undefined;
  let failure: Error | undefined;
  let resolveEarly: ((r: CallResult) => void) | undefined;
  const onFrame = (payload: Buffer): void => {
    const msg = parseResponse(payload);
    if (msg === undefined) throw new Error("malformed response frame");
    let final: CallResult | undefined;
    if (msg.type === "done") final = { kind: "done", exitCode: msg.exitCode, timeout: msg.timeout };
    else if (msg.type === "error") final = { kind: "error", message: msg.message };
    else if (msg.type === "stdout") handlers.onStdout?.(msg.data);
    else handlers.onStderr?.(msg.data);
    if (final !== undefined && settled === undefined) {
      // The final frame settles the call at once; the connection closes behind it.
      settled = final;
      resolveEarly?.(final);
    }
  };
  const socket = createConnection({
    path: socketPath,
    allowHalfOpen: true,
    onread: {
      buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
      callback: (length: number, buffer: Uint8Array): boolean => {
        if (failure !== undefined) return false;
        const chunk = Buffer.from(buffer.buffer, buffer.byteOffset, length);
        // Framed replies start with a big-endian length, whose first byte is 0 for anything up to
        // 16 MiB; raw JSON replies start with "{".
        framed ??= chunk[0] !== 0x7b;
        if (!framed) {
          raw.push(Buffer.from(chunk));
          return true;
        }
        try {
          decoder.feed(chunk, onFrame);
        } catch (error) {
          failure = error as Error;
          socket.destroy();
          return false;
        }
        return true;
      },
    },
  });
  socket.write(requestLine);
  const result = new Promise<CallResult>((resolve, reject) => {
    resolveEarly = resolve;
    socket.on("error", (error) => {
      if (settled === undefined) failure ??= error;
    });
    socket.on("close", () => {
      if (failure !== undefined && settled === undefined) reject(failure);
      else if (settled !== undefined) resolve(settled);
      else if (decoder.buffered > 0) reject(new Error("connection closed inside a frame"));
      else resolve({ kind: "raw", text: Buffer.concat(raw).toString("utf8") });
    });
    socket.on("end", () => socket.end());
  });
  return {
    result,
    socket,
    sendStdin: (data) => socket.write(stdinMessage(data)),
    endStdin: () => {
      socket.write(EOF_MESSAGE);
    },
    sendSignal: (signal) => {
      socket.write(signalMessage(signal));
    },
  };
}

/** Sends an admin command and returns the daemon's raw JSON reply. */
export function adminCall(socketPath: string, secret: Uint8Array, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path: socketPath });
    const parts: Buffer[] = [];
    socket.on("data", (c: Buffer) => parts.push(c));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(parts).toString("utf8")));
    socket.write(signedAdminLine(secret, command));
  });
}
