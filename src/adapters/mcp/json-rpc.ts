/**
 * JSON-RPC 2.0 messages as the MCP stdio transport carries them, classified from untrusted bytes.
 * Nothing here throws: every input is a message, a batch, or a precise reason it is neither.
 */
import { repeatedMemberName, type RepeatedName } from "./repeated-member-name.js";

export type JsonRpcId = string | number;

export type JsonRpcMessage =
  | { readonly kind: "request"; readonly id: JsonRpcId; readonly method: string; readonly params: unknown; readonly raw: Readonly<Record<string, unknown>> }
  | { readonly kind: "notification"; readonly method: string; readonly params: unknown; readonly raw: Readonly<Record<string, unknown>> }
  | { readonly kind: "response"; readonly id: JsonRpcId | null; readonly result: unknown; readonly error: unknown; readonly raw: Readonly<Record<string, unknown>> };

export type Classified =
  | { readonly kind: "message"; readonly message: JsonRpcMessage }
  | { readonly kind: "batch"; readonly items: readonly Classified[] }
  | { readonly kind: "invalid"; readonly reason: string; readonly id: JsonRpcId | null };

export type Parsed =
  | { readonly ok: true; readonly value: unknown; /** A member name some object of the line repeats (see repeated-member-name.ts). */ readonly repeatedName: RepeatedName | null }
  | { readonly ok: false; readonly reason: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses one line: invalid UTF-8 and invalid JSON are reasons, not exceptions. `ignoringCase`:
 * names that differ only in case or Unicode normal form count as repeated (for what a server will
 * read).
 */
export function parseLine(bytes: Uint8Array, ignoringCase: boolean): Parsed {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: "the line is not valid UTF-8" };
  }
  try {
    const value = JSON.parse(text) as unknown;
    return { ok: true, value, repeatedName: repeatedMemberName(text, ignoringCase) };
  } catch (error) {
    return { ok: false, reason: `the line is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** The id of a classified line the proxy can answer: a request's, a response's, or an invalid message's when readable. */
export function answerableId(classified: Classified): JsonRpcId | null {
  if (classified.kind === "invalid") return classified.id;
  if (classified.kind === "batch" || classified.message.kind === "notification") return null;
  return classified.message.id;
}

export function classify(value: unknown): Classified {
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: "invalid", reason: "an empty batch", id: null };
    return { kind: "batch", items: value.map((item) => classifyOne(item)) };
  }
  return classifyOne(value);
}

function classifyOne(value: unknown): Classified {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { kind: "invalid", reason: "a message must be a JSON object", id: null };
  const raw = value as Record<string, unknown>;
  const id = Object.hasOwn(raw, "id") ? raw.id : undefined;
  const usableId = isId(id) ? id : null;
  if (raw.jsonrpc !== "2.0") return { kind: "invalid", reason: 'jsonrpc must be "2.0"', id: usableId };
  const params = Object.hasOwn(raw, "params") ? raw.params : undefined;
  if (params !== undefined && (params === null || typeof params !== "object")) return { kind: "invalid", reason: "params must be an object or an array", id: usableId };
  if (Object.hasOwn(raw, "method")) {
    if (typeof raw.method !== "string" || raw.method === "") return { kind: "invalid", reason: "method must be a non-empty string", id: usableId };
    if (Object.hasOwn(raw, "result") || Object.hasOwn(raw, "error")) return { kind: "invalid", reason: "a request carries no result or error", id: usableId };
    if (id === undefined) return { kind: "message", message: { kind: "notification", method: raw.method, params, raw } };
    if (!isId(id)) return { kind: "invalid", reason: "id must be a string or an integer", id: null };
    return { kind: "message", message: { kind: "request", id, method: raw.method, params, raw } };
  }
  const hasResult = Object.hasOwn(raw, "result");
  const hasError = Object.hasOwn(raw, "error");
  if (hasResult === hasError) return { kind: "invalid", reason: "a response carries exactly one of result and error", id: usableId };
  if (id !== null && !isId(id)) return { kind: "invalid", reason: "a response's id must be a string, an integer or null", id: null };
  if (hasError && !isErrorObject(raw.error)) return { kind: "invalid", reason: "error must be an object with an integer code and a message", id: usableId };
  return { kind: "message", message: { kind: "response", id: id as JsonRpcId | null, result: raw.result, error: raw.error, raw } };
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));
}

function isErrorObject(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const e = value as Record<string, unknown>;
  return typeof e.code === "number" && Number.isInteger(e.code) && typeof e.message === "string";
}

/** A key for a request id that keeps `1` and `"1"` apart and never reaches Object.prototype. */
export function idKey(id: JsonRpcId): string {
  return typeof id === "number" ? `n:${id}` : `s:${id}`;
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/**
 * What a peer learns of a failure: the JSON-RPC code and its standard words, nothing of ours. An
 * error to a request whose id could not be read carries no id, as MCP's schema has it (JSON-RPC
 * 2.0 wrote `null`, which MCP's SDK refuses).
 */
export function errorResponse(id: JsonRpcId | null, code: number): string {
  const message =
    code === PARSE_ERROR ? "Parse error" : code === INVALID_REQUEST ? "Invalid Request" : code === INVALID_PARAMS ? "Invalid params" : "Internal error";
  return JSON.stringify(id === null ? { jsonrpc: "2.0", error: { code, message } } : { jsonrpc: "2.0", id, error: { code, message } });
}
