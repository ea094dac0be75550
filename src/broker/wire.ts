import { goJsonString } from "./go-json.js";

/**
 * The NDJSON messages a wrapper sends and the frames the daemon answers with. Parsing mirrors the
 * reference's Go decoding: a field of the wrong JSON type is "invalid json", a missing one is its zero
 * value (which then fails its own check with the reference's error).
 */
export const PROTOCOL_VERSION = 3;

export interface ProxyRequest {
  readonly kind: "proxy";
  readonly version: number;
  readonly tool: string;
  readonly args: readonly string[] | null;
  readonly cwd: string;
  readonly timestamp: string;
  readonly hmac: string;
  readonly nonce: string;
  readonly env: Readonly<Record<string, string>> | null;
}

export interface AdminRequest {
  readonly kind: "admin";
  readonly version: number;
  readonly admin: string;
  readonly timestamp: string;
  readonly hmac: string;
  readonly nonce: string;
}

/** A request refused before authentication; the reply is raw JSON, as the reference sends it. */
export interface RawRefusal {
  readonly kind: "refused";
  readonly message: "invalid json" | "invalid request: use proxy protocol";
}

export type ParsedRequest = ProxyRequest | AdminRequest | RawRefusal;

const INVALID_JSON: RawRefusal = { kind: "refused", message: "invalid json" };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function parseJson(line: Buffer): Json | undefined {
  try {
    return JSON.parse(line.toString("utf8")) as Json;
  } catch {
    return undefined;
  }
}

function isObject(v: Json | undefined): v is { [key: string]: Json } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

// Go decodes null into a string field as "" and into a slice or map as nil; any other mismatch fails.
function str(o: { [key: string]: Json }, k: string): string | undefined {
  if (!has(o, k)) return "";
  const v = o[k];
  if (v === null) return "";
  return typeof v === "string" ? v : undefined;
}

function int(o: { [key: string]: Json }, k: string): number | undefined {
  if (!has(o, k)) return 0;
  const v = o[k];
  if (v === null) return 0;
  return typeof v === "number" && Number.isSafeInteger(v) ? v : undefined;
}

function strings(o: { [key: string]: Json }, k: string): string[] | null | undefined {
  if (!has(o, k)) return null;
  const v = o[k];
  if (v === null || v === undefined) return null;
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const item of v) {
    if (typeof item !== "string") return undefined;
    out.push(item);
  }
  return out;
}

function stringMap(o: { [key: string]: Json }, k: string): Record<string, string> | null | undefined {
  if (!has(o, k)) return null;
  const v = o[k];
  if (v === null || v === undefined) return null;
  if (!isObject(v)) return undefined;
  // A prototype-less object: a "__proto__" key from the peer stays an ordinary key.
  const out = Object.create(null) as Record<string, string>;
  for (const key of Object.keys(v)) {
    const item = v[key];
    if (typeof item !== "string") return undefined;
    out[key] = item;
  }
  return out;
}

export function parseRequest(line: Buffer): ParsedRequest {
  const o = parseJson(line);
  if (!isObject(o)) return INVALID_JSON;
  const version = int(o, "version");
  const timestamp = str(o, "timestamp");
  const hmac = str(o, "hmac");
  const nonce = str(o, "nonce");
  const admin = str(o, "admin");
  const tool = str(o, "tool");
  const cwd = str(o, "cwd");
  const args = strings(o, "args");
  const env = stringMap(o, "env");
  if (
    version === undefined ||
    timestamp === undefined ||
    hmac === undefined ||
    nonce === undefined ||
    admin === undefined ||
    tool === undefined ||
    cwd === undefined ||
    args === undefined ||
    env === undefined
  ) {
    return INVALID_JSON;
  }
  if (admin !== "") return { kind: "admin", version, admin, timestamp, hmac, nonce };
  if (!has(o, "hmac")) return { kind: "refused", message: "invalid request: use proxy protocol" };
  return { kind: "proxy", version, tool, args, cwd, timestamp, hmac, nonce, env };
}

export type ClientMessage =
  | { readonly type: "stdin"; readonly data: Buffer }
  | { readonly type: "eof" }
  | { readonly type: "signal"; readonly signal: ForwardedSignal }
  | { readonly type: "ignored"; readonly reason: string };

export const FORWARDED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type ForwardedSignal = (typeof FORWARDED_SIGNALS)[number];

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Parses one message sent after the request; undefined when it is not a message at all. */
export function parseClientMessage(line: Buffer): ClientMessage | undefined {
  const o = parseJson(line);
  if (!isObject(o)) return undefined;
  const type = o["type"];
  if (type === "stdin") {
    if (o["eof"] === true) return { type: "eof" };
    const data = o["data"];
    if (typeof data !== "string" || !STRICT_BASE64.test(data)) return undefined;
    return { type: "stdin", data: Buffer.from(data, "base64") };
  }
  if (type === "signal") {
    const signal = o["signal"];
    const known = FORWARDED_SIGNALS.find((s) => s === signal);
    return known === undefined ? { type: "ignored", reason: "unsupported signal" } : { type: "signal", signal: known };
  }
  if (type === "cleanup") return { type: "ignored", reason: "cleanup is done by the daemon" };
  return { type: "ignored", reason: "unknown message type" };
}

/** Client side: the messages a wrapper sends after its request. */
export function stdinMessage(data: Uint8Array): string {
  return `{"type":"stdin","data":"${Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64")}"}\n`;
}
export const EOF_MESSAGE = '{"type":"stdin","eof":true}\n';
export function signalMessage(signal: ForwardedSignal): string {
  return `{"type":"signal","signal":"${signal}"}\n`;
}

// Response payloads, byte-for-byte as the reference's Go encoder writes them.
export function donePayload(exitCode: number, timedOut: boolean): string {
  if (timedOut) return '{"type":"done","exit_code":-1,"timeout":true}';
  return exitCode === 0 ? '{"type":"done"}' : `{"type":"done","exit_code":${exitCode}}`;
}

export function errorPayload(message: string): string {
  return `{"type":"error","message":${goJsonString(message)}}`;
}

export function rawErrorReply(message: string): string {
  return `{"error":${goJsonString(message)}}`;
}

const PREFIX = { stdout: Buffer.from('{"type":"stdout","data":"'), stderr: Buffer.from('{"type":"stderr","data":"') };
const SUFFIX = Buffer.from('"}');

/**
 * One output frame, built straight into its final buffer (length prefix, JSON, base64) with no
 * intermediate JSON string: this is the hot path of every byte a tool prints.
 */
export function outputFrame(stream: "stdout" | "stderr", chunk: Buffer): Buffer {
  const prefix = PREFIX[stream];
  const b64 = 4 * Math.ceil(chunk.length / 3);
  const payload = prefix.length + b64 + SUFFIX.length;
  const out = Buffer.allocUnsafe(4 + payload);
  out.writeUInt32BE(payload, 0);
  prefix.copy(out, 4);
  out.write(chunk.toString("base64"), 4 + prefix.length, b64, "latin1");
  SUFFIX.copy(out, 4 + prefix.length + b64);
  return out;
}

/** Parsed response frame, client side. */
export type ResponseMessage =
  | { readonly type: "stdout" | "stderr"; readonly data: Buffer }
  | { readonly type: "done"; readonly exitCode: number; readonly timeout: boolean }
  | { readonly type: "error"; readonly message: string };

/** The decoded length a canonical padded base64 text of `n` symbols must have. */
function base64Length(text: Buffer | string, start: number, end: number): number {
  const n = end - start;
  const at = (i: number): number => (typeof text === "string" ? text.charCodeAt(i) : (text[i] as number));
  const pad = n === 0 ? 0 : (at(end - 1) === 0x3d ? 1 : 0) + (n > 1 && at(end - 2) === 0x3d ? 1 : 0);
  return n % 4 === 0 ? (n / 4) * 3 - pad : -1;
}

/**
 * Output frames are by far the most common and the largest, so they are recognised by their fixed
 * prefix and decoded straight from the payload bytes, without building a JSON string first. Base64
 * decoding skips characters outside the alphabet, so a decoded length that differs from the one the
 * text's length implies means the text was not canonical base64.
 */
function parseOutputFast(payload: Buffer): ResponseMessage | undefined {
  for (const type of ["stdout", "stderr"] as const) {
    const prefix = PREFIX[type];
    if (payload.length < prefix.length + SUFFIX.length || payload.compare(prefix, 0, prefix.length, 0, prefix.length) !== 0) continue;
    const end = payload.length - SUFFIX.length;
    if (payload.compare(SUFFIX, 0, SUFFIX.length, end) !== 0) return undefined;
    const data = Buffer.from(payload.toString("latin1", prefix.length, end), "base64");
    return data.length === base64Length(payload, prefix.length, end) ? { type, data } : undefined;
  }
  return undefined;
}

export function parseResponse(payload: Buffer): ResponseMessage | undefined {
  if (payload[0] === 0x7b && payload[2] === 0x74) {
    const fast = parseOutputFast(payload);
    if (fast !== undefined) return fast;
  }
  const o = parseJson(payload);
  if (!isObject(o)) return undefined;
  const type = o["type"];
  if (type === "stdout" || type === "stderr") {
    const data = o["data"];
    if (typeof data !== "string" || !STRICT_BASE64.test(data)) return undefined;
    return { type, data: Buffer.from(data, "base64") };
  }
  if (type === "done") {
    const code = o["exit_code"] ?? 0;
    if (typeof code !== "number" || !Number.isInteger(code)) return undefined;
    return { type, exitCode: code, timeout: o["timeout"] === true };
  }
  if (type === "error") {
    const message = o["message"];
    return typeof message === "string" ? { type, message } : undefined;
  }
  return undefined;
}
