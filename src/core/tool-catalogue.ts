import type { ActionClass } from "./action-classes.js";
import type { PolicyMode } from "./policy-modes.js";
import type { TrustLevel } from "./trust-levels.js";

/**
 * What each tool's response introduces into the context (response trust). Independent of whether
 * the tool may be called: `web_fetch` is safe to call but returns untrusted text; `exec` returns
 * trusted output but is dangerous to call. Names are exact: a tool registered under any other
 * spelling is unknown, which is how a rename attack is caught.
 */
export const DEFAULT_TOOL_OUTPUT_TAINTS: Readonly<Record<string, TrustLevel>> = Object.freeze({
  read: "trusted",
  Read: "trusted",
  edit: "trusted",
  Edit: "trusted",
  write: "trusted",
  Write: "trusted",
  apply_patch: "trusted",
  exec: "trusted",
  process: "trusted",
  tts: "trusted",
  cron: "trusted",
  sessions_spawn: "trusted",
  sessions_send: "trusted",
  sessions_list: "trusted",
  sessions_history: "trusted",
  agents_list: "trusted",
  nodes: "trusted",
  canvas: "trusted",
  gateway: "trusted",
  session_status: "trusted",
  verify: "trusted",
  update_and_sign: "trusted",
  vestige_search: "shared",
  vestige_smart_ingest: "shared",
  vestige_ingest: "shared",
  vestige_promote: "shared",
  vestige_demote: "shared",
  memory_search: "shared",
  memory_get: "shared",
  message: "external",
  gog: "external",
  image: "external",
  web_fetch: "untrusted",
  web_search: "untrusted",
  browser: "untrusted",
});

/** Tools with no dangerous side effect: callable at any taint (`{ "*": "allow" }`). */
export const DEFAULT_SAFE_TOOLS: readonly string[] = Object.freeze([
  "read",
  "Read",
  "memory_search",
  "memory_get",
  "web_fetch",
  "web_search",
  "image",
  "session_status",
  "sessions_list",
  "sessions_history",
  "agents_list",
  "vestige_search",
  "vestige_promote",
  "vestige_demote",
  "verify",
]);

/** Known tools with side effects: they follow the taint policy's mode for the current taint. */
export const DEFAULT_TAINT_DEFAULT_TOOLS: readonly string[] = Object.freeze([
  "exec",
  "process",
  "browser",
  "message",
  "write",
  "Write",
  "edit",
  "Edit",
  "apply_patch",
  "cron",
  "sessions_spawn",
  "sessions_send",
  "nodes",
  "canvas",
  "tts",
  "gog",
  "vestige_smart_ingest",
  "vestige_ingest",
  "update_and_sign",
]);

/** Tools that need approval even at `trusted`: `gateway` can switch this very plugin off. */
export const DEFAULT_DANGEROUS_TOOLS: Readonly<Record<string, Readonly<Record<string, PolicyMode>>>> = Object.freeze({
  gateway: Object.freeze({ "*": "confirm" as const }),
});

/** RFC-001 action class of calling each known tool. */
export const DEFAULT_ACTION_CLASSES: Readonly<Record<string, ActionClass>> = Object.freeze({
  read: "read",
  Read: "read",
  memory_search: "read",
  memory_get: "read",
  web_fetch: "read",
  web_search: "read",
  image: "read",
  session_status: "read",
  sessions_list: "read",
  sessions_history: "read",
  agents_list: "read",
  vestige_search: "read",
  verify: "read",
  edit: "write",
  Edit: "write",
  write: "write",
  Write: "write",
  apply_patch: "write",
  update_and_sign: "write",
  cron: "write",
  canvas: "write",
  vestige_smart_ingest: "write",
  vestige_ingest: "write",
  vestige_promote: "write",
  vestige_demote: "write",
  message: "send",
  sessions_send: "send",
  sessions_spawn: "send",
  browser: "send",
  gog: "send",
  tts: "send",
  exec: "exec",
  process: "exec",
  nodes: "exec",
  gateway: "exec",
});

/** The output taint and action class an unknown tool gets: the strictest of each. */
export const UNKNOWN_TOOL_OUTPUT_TAINT: TrustLevel = "untrusted";
export const UNKNOWN_TOOL_ACTION_CLASS: ActionClass = "trade";

/** Tools that write a file, whose target may be a protected memory file. */
export const FILE_WRITE_TOOLS: ReadonlySet<string> = new Set(["write", "Write", "edit", "Edit", "apply_patch"]);

/** The `message` tool, whose owner-DM sends are always allowed. */
export const MESSAGE_TOOL = "message";
