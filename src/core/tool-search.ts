import { nullPrototype } from "./config-shape.js";
import type { TrustLevel } from "./trust-levels.js";
import { isRecord } from "./json-record.js";

/**
 * OpenClaw's Tool Search (on by default since 2026.9): the model is shown a few meta-tools and
 * reaches most tools through them. `tool_search` and `tool_describe` read the host's catalogue;
 * `tool_call {id, args}` runs the catalogue entry `id` with `args`; `tool_search_code` runs a
 * script whose `openclaw.tools.call(id, args)` calls come back through the host one by one.
 *
 * What the pinned host does (read from its code and checked by test/e2e): `before_tool_call`
 * fires for the `tool_call` itself and again for the call it wraps, with the target's own name
 * and arguments and a call id `tool_search_code:<parent call id>:<tool name>:<n>`; the target's
 * result reaches `after_tool_call` first, then the wrapper's, which quotes it.
 */
export const TOOL_CALL_TOOL = "tool_call";
export const TOOL_SEARCH_TOOL = "tool_search";
export const TOOL_DESCRIBE_TOOL = "tool_describe";
export const CODE_BRIDGE_TOOL = "tool_search_code";

/** Tools whose output is the host's catalogue of tools (names, descriptions, schemas). */
export const DISCOVERY_TOOLS: ReadonlySet<string> = new Set([TOOL_SEARCH_TOOL, TOOL_DESCRIBE_TOOL]);

/** The keys the host reads a `tool_call` target from, in its order. */
const SELECTOR_KEYS = ["id", "toolId", "name"] as const;
/** Catalogue ids are `<source>:<source name>:<tool name>`. */
const CATALOGUE_ID = /^(openclaw|mcp|client):[^:]*:(.+)$/;
/**
 * The name the host gives an MCP server's tool (`<server>__<tool>`), which its catalogue id ends
 * in (`mcp:rug:rug__notes`) and which the host calls it by. No core tool's name has this form.
 */
const MCP_TOOL_NAME = /^[^:]+__[^:]+$/;

export interface PlainCall {
  readonly tool: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * The call a `tool_call` stands for, read the way the host reads it: the target from `id`
 * (else `toolId`, else `name`), its arguments from `args` (else `input`), or, when those are
 * absent or empty, from the other fields (the host repairs such flattened calls; `args.x` keys
 * count as `x`). A catalogue id of an OpenClaw tool names that tool, and one of an MCP server's
 * tool the name the host gives it (`mcp:rug:rug__notes` is `rug__notes`); any other keeps its
 * whole id (`mcp:server:exec`, a client tool's), so a third-party tool can never pass for a core
 * tool of the same name. Returns null for any other tool, and a target of `""` when no target can be read
 * (the host refuses such a call; the guard treats it as an unknown tool).
 *
 * Where the host could read a call differently (its flattened-argument repair consults the live
 * catalogue), the host's own `before_tool_call` for the inner call is the ground truth: an inner
 * call that does not match what was decided here is decided on its own (see {@link sameCall}).
 */
export function unwrapToolCall(call: PlainCall): PlainCall | null {
  if (call.tool !== TOOL_CALL_TOOL) return null;
  const params = call.params;
  const selectorKey = SELECTOR_KEYS.find((key) => typeof params[key] === "string" && (params[key] as string).trim() !== "");
  const selector = selectorKey === undefined ? "" : (params[selectorKey] as string).trim();
  const dotted: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(params)) if (key.startsWith("args.") && key.length > 5) dotted[key.slice(5)] = value;
  const nested = params.args ?? params.input;
  let args: Record<string, unknown>;
  if (nested !== undefined && nested !== null && !(isRecord(nested) && Object.keys(nested).length === 0)) {
    // A non-object `args` is not a call any tool accepts; it is decided with no arguments, and the
    // host's own inner call (if it makes one) is decided again on what it really carries.
    args = isRecord(nested) ? { ...dotted, ...nested } : { ...dotted };
  } else {
    const wrapperKeys = new Set<string>(["args", "input", selectorKey ?? "id"]);
    args = { ...dotted };
    for (const [key, value] of Object.entries(params)) if (!wrapperKeys.has(key) && !key.startsWith("args.")) args[key] = value;
  }
  return { tool: targetTool(selector), params: plainRecord(args) };
}

/**
 * The tool name a `tool_call` selector names (see {@link unwrapToolCall}): an OpenClaw tool's
 * name, an MCP server's tool by the name the host calls it (`<server>__<tool>`, the name the owner
 * configures it under, and the one the call the host then makes carries); any other id whole.
 */
export function targetTool(selector: string): string {
  const id = CATALOGUE_ID.exec(selector);
  if (id === null) return selector;
  // Both groups of the pattern take part in every match.
  const [, source, name] = id as unknown as readonly [string, string, string];
  if (source === "openclaw") return name;
  return source === "mcp" && MCP_TOOL_NAME.test(name) ? name : selector;
}

/**
 * The call id of the wrapped call the host makes for a Tool Search parent call, and the parent's
 * id in it: `tool_search_code:<parent>:<tool>:<n>` (the parent id sanitised to `[A-Za-z0-9_.:-]`,
 * at most 120 characters). Null when the id is not of that form.
 */
export function parentCallId(callId: string, tool: string): string | null {
  const prefix = `${CODE_BRIDGE_TOOL}:`;
  if (!callId.startsWith(prefix)) return null;
  const rest = callId.slice(prefix.length);
  const suffix = new RegExp(`:${escapeRegExp(tool)}:\\d+$`).exec(rest);
  if (suffix === null || suffix.index === 0) return null;
  return rest.slice(0, suffix.index);
}

/** A call id as the host writes it into an inner call's id (so the two can be compared). */
export function sanitisedCallId(callId: string): string {
  return callId.trim().replace(/[^A-Za-z0-9_.:-]+/g, "_").slice(0, 120) || "call";
}

/** Whether an inner call is the call its wrapper was decided as: same tool, same arguments. */
export function sameCall(decided: PlainCall, inner: PlainCall): boolean {
  const tool = decided.tool === inner.tool || decided.tool.endsWith(`:${inner.tool}`);
  return tool && canonical(decided.params) === canonical(inner.params);
}

/**
 * The trust of a discovery tool's output. The host's own entries (core and plugin tools) are its
 * catalogue and trusted; MCP and client entries carry names and descriptions their servers wrote,
 * which OpenClaw itself treats as network content, so any such entry makes the output untrusted.
 */
export function discoveryOutputTrust(output: unknown): TrustLevel {
  return THIRD_PARTY_ENTRY.test(safeJson(output)) ? "untrusted" : "trusted";
}

/** `"source": "mcp"` or `"client"`, also as it appears escaped inside a JSON string. */
const THIRD_PARTY_ENTRY = /\\*"source\\*"\s*:\s*\\*"(?:mcp|client)\\*"/;

function safeJson(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    // A value JSON cannot hold (a cycle) is not a catalogue the host wrote.
    return '"source":"client"';
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/** Arguments as a dictionary with no prototype (a `__proto__` key stays data). */
function plainRecord(source: Record<string, unknown>): Record<string, unknown> {
  return nullPrototype(source);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
