import type { ActionClass } from "./action-classes.js";
import { nullPrototype } from "./config-shape.js";
import type { PolicyMode } from "./policy-modes.js";
import type { TrustLevel } from "./trust-levels.js";

/**
 * How the guard sees one tool, on the catalogue's two independent axes plus its action class:
 * - `output`: what the tool's response introduces into the context (response trust);
 * - `call`: whether it may be called at a taint: `safe` at any taint (`{ "*": "allow" }`),
 *   `taint` by the taint policy's mode, `dangerous` needs approval even at `trusted`;
 * - `action`: its RFC-001 action class (intent scope, argument roles).
 *
 * `web_fetch` is safe to call but returns untrusted text; `exec` returns trusted output but is
 * dangerous to call. Names are exact: a tool registered under any other spelling is unknown,
 * which is how a rename attack is caught.
 */
export interface CatalogueEntry {
  readonly output: TrustLevel;
  readonly call: "safe" | "taint" | "dangerous";
  readonly action: ActionClass;
}

export const entry = (output: TrustLevel, call: CatalogueEntry["call"], action: ActionClass): CatalogueEntry => Object.freeze({ output, call, action });

/**
 * The seed's table: the tools of the OpenClaw it was written for (some since renamed or moved
 * into plugins, kept so a configuration written for that host still means the same).
 */
const SEED_TOOLS: Readonly<Record<string, CatalogueEntry>> = {
  read: entry("trusted", "safe", "read"),
  Read: entry("trusted", "safe", "read"),
  edit: entry("trusted", "taint", "write"),
  Edit: entry("trusted", "taint", "write"),
  write: entry("trusted", "taint", "write"),
  Write: entry("trusted", "taint", "write"),
  apply_patch: entry("trusted", "taint", "write"),
  exec: entry("trusted", "taint", "exec"),
  process: entry("trusted", "taint", "exec"),
  tts: entry("trusted", "taint", "send"),
  cron: entry("trusted", "taint", "write"),
  sessions_spawn: entry("trusted", "taint", "send"),
  sessions_send: entry("trusted", "taint", "send"),
  sessions_list: entry("trusted", "safe", "read"),
  sessions_history: entry("trusted", "safe", "read"),
  agents_list: entry("trusted", "safe", "read"),
  // A paired device's notifications (anyone's messages), camera and command results; a canvas
  // shows and evaluates web content (the host itself marks its results network content).
  nodes: entry("untrusted", "taint", "exec"),
  canvas: entry("untrusted", "taint", "write"),
  // `gateway` can rewrite the configuration and so switch this very plugin off.
  gateway: entry("trusted", "dangerous", "exec"),
  session_status: entry("trusted", "safe", "read"),
  vestige_search: entry("shared", "safe", "read"),
  vestige_smart_ingest: entry("shared", "taint", "write"),
  vestige_ingest: entry("shared", "taint", "write"),
  vestige_promote: entry("shared", "safe", "write"),
  vestige_demote: entry("shared", "safe", "write"),
  memory_search: entry("shared", "safe", "read"),
  memory_get: entry("shared", "safe", "read"),
  message: entry("external", "taint", "send"),
  gog: entry("external", "taint", "send"),
  image: entry("external", "safe", "read"),
  web_fetch: entry("untrusted", "safe", "read"),
  web_search: entry("untrusted", "safe", "read"),
  browser: entry("untrusted", "taint", "send"),
};

/** provenant's own owner-only tools (prompt signing). */
const PROVENANT_TOOLS: Readonly<Record<string, CatalogueEntry>> = {
  verify: entry("trusted", "safe", "read"),
  update_and_sign: entry("trusted", "taint", "write"),
};

/**
 * Tool Search (see tool-search.ts). The discovery tools read the host's catalogue (their output
 * trust is refined by what they return); `tool_call` is never decided as itself but as the call
 * it wraps, and is listed here so it stays on the model's list at any taint; `tool_search_code`
 * runs a sandboxed script whose every tool call comes back through the host and is decided then.
 */
const TOOL_SEARCH_TOOLS: Readonly<Record<string, CatalogueEntry>> = {
  tool_search: entry("trusted", "safe", "read"),
  tool_describe: entry("trusted", "safe", "read"),
  tool_call: entry("trusted", "safe", "read"),
  tool_search_code: entry("trusted", "safe", "read"),
};

/**
 * Code Mode's control tools (code-mode-script.ts). Its `exec` is the seed's entry, whatever it
 * runs; `wait {runId}` resumes a script that yielded and returns what it goes on to return, known
 * no better than the script's own result.
 */
const CODE_MODE_TOOLS: Readonly<Record<string, CatalogueEntry>> = {
  wait: entry("untrusted", "taint", "exec"),
};

/**
 * The core tools of OpenClaw 2026.9.6 beyond the seed's (its `CORE_TOOL_FACTORY_DESCRIPTORS`; a
 * test reads that list from the pinned program and fails on any name missing here). Output that
 * others wrote (screens, transcripts, replies, plugin stores) is external or untrusted; anything
 * that changes state or reaches out follows the taint policy; what can reconfigure or extend the
 * host itself (plugins, the `openclaw` setup agent) needs approval like `gateway`.
 */
const OPENCLAW_CORE_TOOLS: Readonly<Record<string, CatalogueEntry>> = {
  ls: entry("trusted", "safe", "read"),
  automations: entry("trusted", "taint", "write"),
  agents_wait: entry("trusted", "safe", "read"),
  ask_user: entry("external", "taint", "send"),
  openclaw: entry("shared", "dangerous", "exec"),
  plugins: entry("untrusted", "dangerous", "exec"),
  computer: entry("untrusted", "taint", "exec"),
  screen: entry("untrusted", "safe", "read"),
  conversations_list: entry("external", "safe", "read"),
  conversations_send: entry("external", "taint", "send"),
  conversations_turn: entry("external", "taint", "send"),
  theme: entry("trusted", "taint", "write"),
  secrets: entry("trusted", "taint", "exec"),
  dashboard: entry("shared", "taint", "write"),
  mobile_ui: entry("untrusted", "taint", "exec"),
  sessions: entry("trusted", "taint", "write"),
  sessions_search: entry("trusted", "safe", "read"),
  sessions_yield: entry("trusted", "safe", "read"),
  subagents: entry("trusted", "taint", "write"),
  terminal: entry("external", "taint", "exec"),
  portal: entry("trusted", "taint", "exec"),
  transcripts: entry("external", "taint", "write"),
  get_goal: entry("trusted", "safe", "read"),
  create_goal: entry("trusted", "taint", "write"),
  update_goal: entry("trusted", "taint", "write"),
  skill_workshop: entry("shared", "taint", "write"),
  progress_card: entry("trusted", "taint", "write"),
  heartbeat_respond: entry("trusted", "taint", "send"),
  dismiss_task: entry("trusted", "taint", "write"),
  suggest_task: entry("trusted", "taint", "write"),
  github_identity_status: entry("trusted", "safe", "read"),
  github_publish: entry("external", "taint", "send"),
  image_generate: entry("external", "taint", "send"),
  music_generate: entry("external", "taint", "send"),
  video_generate: entry("external", "taint", "send"),
  pdf: entry("untrusted", "safe", "read"),
  view_image: entry("external", "safe", "read"),
  show_widget: entry("trusted", "taint", "send"),
  structured_output: entry("trusted", "safe", "read"),
};

/** The tools OpenClaw's bundled plugins declare (`contracts.tools` in their manifests). */
const OPENCLAW_PLUGIN_TOOLS: Readonly<Record<string, CatalogueEntry>> = {
  // memory-core (memory_search and memory_get are the seed's)
  intent: entry("trusted", "taint", "write"),
  // file-transfer: files and listings from a paired node, written by whoever wrote them there
  file_fetch: entry("external", "safe", "read"),
  dir_list: entry("external", "safe", "read"),
  dir_fetch: entry("external", "safe", "read"),
  file_write: entry("trusted", "taint", "write"),
  // memory-wiki
  wiki_status: entry("shared", "safe", "read"),
  wiki_lint: entry("shared", "safe", "read"),
  wiki_search: entry("shared", "safe", "read"),
  wiki_get: entry("shared", "safe", "read"),
  wiki_apply: entry("shared", "taint", "write"),
  node_inference: entry("external", "taint", "exec"),
  talk_voice: entry("trusted", "taint", "write"),
  onepassword: entry("trusted", "taint", "exec"),
  "llm-task": entry("shared", "taint", "send"),
  // commands on a remote machine, whose output the host marks network content
  crabbox: entry("untrusted", "taint", "exec"),
  // xai: code runs on the provider's servers; X posts are anyone's
  code_execution: entry("external", "taint", "send"),
  x_search: entry("untrusted", "safe", "read"),
  // workboard: a shared task board; cards and logs are written by other agents and people
  ...workboard(),
};

function workboard(): Record<string, CatalogueEntry> {
  const reads = ["list", "read", "boards", "stats", "runs", "attachment_read", "notify_list", "notify_events", "worker_log"];
  const writes = [
    "create", "link", "claim", "heartbeat", "complete", "attachment_add", "attachment_delete", "block", "board_create", "board_archive",
    "board_delete", "specify", "decompose", "notify_subscribe", "notify_advance", "notify_unsubscribe", "promote", "reassign", "reclaim",
    "dispatch", "release", "comment", "proof", "protocol_violation", "unblock", "move",
  ];
  const out = nullPrototype<CatalogueEntry>();
  for (const name of reads) out[`workboard_${name}`] = entry("shared", "safe", "read");
  for (const name of writes) out[`workboard_${name}`] = entry("shared", "taint", "write");
  return out;
}

/** Every tool the guard knows, by exact name. */
export const TOOL_CATALOGUE: Readonly<Record<string, CatalogueEntry>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, CatalogueEntry>, SEED_TOOLS, PROVENANT_TOOLS, TOOL_SEARCH_TOOLS, CODE_MODE_TOOLS, OPENCLAW_CORE_TOOLS, OPENCLAW_PLUGIN_TOOLS),
);

function byField<T>(pick: (e: CatalogueEntry) => T): Readonly<Record<string, T>> {
  return Object.freeze(Object.fromEntries(Object.entries(TOOL_CATALOGUE).map(([name, e]) => [name, pick(e)])));
}

/** What each tool's response introduces into the context (response trust). */
export const DEFAULT_TOOL_OUTPUT_TAINTS: Readonly<Record<string, TrustLevel>> = byField((e) => e.output);

/** Tools with no dangerous side effect: callable at any taint (`{ "*": "allow" }`). */
export const DEFAULT_SAFE_TOOLS: readonly string[] = Object.freeze(Object.keys(TOOL_CATALOGUE).filter((t) => TOOL_CATALOGUE[t]?.call === "safe"));

/** Known tools with side effects: they follow the taint policy's mode for the current taint. */
export const DEFAULT_TAINT_DEFAULT_TOOLS: readonly string[] = Object.freeze(Object.keys(TOOL_CATALOGUE).filter((t) => TOOL_CATALOGUE[t]?.call === "taint"));

/** Tools that need approval even at `trusted`. */
export const DEFAULT_DANGEROUS_TOOLS: Readonly<Record<string, Readonly<Record<string, PolicyMode>>>> = Object.freeze(
  Object.fromEntries(Object.keys(TOOL_CATALOGUE).filter((t) => TOOL_CATALOGUE[t]?.call === "dangerous").map((t) => [t, Object.freeze({ "*": "confirm" as const })])),
);

/** RFC-001 action class of calling each known tool. */
export const DEFAULT_ACTION_CLASSES: Readonly<Record<string, ActionClass>> = byField((e) => e.action);

/** The output taint and action class an unknown tool gets: the strictest of each. */
export const UNKNOWN_TOOL_OUTPUT_TAINT: TrustLevel = "untrusted";
export const UNKNOWN_TOOL_ACTION_CLASS: ActionClass = "trade";

/** Tools that write a file, whose target may be a protected memory file. */
export const FILE_WRITE_TOOLS: ReadonlySet<string> = new Set(["write", "Write", "edit", "Edit", "apply_patch"]);

/** The `message` tool, whose owner-DM sends are always allowed. */
export const MESSAGE_TOOL = "message";
