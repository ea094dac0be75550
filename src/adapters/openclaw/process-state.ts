import type { AdapterGuard } from "./provenant-plugin.js";
import { HostCalls } from "./host-calls.js";
import { OWNER_TOOL_NAMES } from "./owner-tools.js";
import type { ToolRequester } from "./sdk-types.js";
import { SessionDirectory } from "./session-directory.js";
import { ToolSurface } from "./tool-surface.js";

/**
 * What one OpenClaw process shares between the instances of this plugin. OpenClaw loads a plugin
 * more than once in a process (one registry for hooks, others for commands, tools, inspection),
 * and each load runs `register`; but a workspace's guard holds the ledger's writer lock and the
 * session map must be the same one the hooks filled, so both live here, keyed on `globalThis`.
 */
export interface ProcessState {
  readonly sessions: SessionDirectory;
  readonly surface: ToolSurface;
  /** Channel accounts where OpenClaw could not show a prompt, by {@link surfaceKey}: when it was seen (ms since the epoch). */
  readonly surfacesWithoutApprovals: Map<string, number>;
  readonly calls: HostCalls;
  readonly guards: Map<string, { readonly configKey: string; readonly guard: AdapterGuard }>;
}

/** A requester's channel account: what OpenClaw's configuration enables approvals for. */
export function surfaceKey(requester: ToolRequester): string {
  return JSON.stringify([requester.channel ?? null, requester.accountId ?? null]);
}

const KEY = Symbol.for("provenant.openclaw.process-state");

export function processState(): ProcessState {
  const holder = globalThis as unknown as Record<symbol, ProcessState | undefined>;
  let state = holder[KEY];
  if (state === undefined) {
    state = { sessions: new SessionDirectory(), surface: new ToolSurface(OWNER_TOOL_NAMES), surfacesWithoutApprovals: new Map(), calls: new HostCalls(), guards: new Map() };
    holder[KEY] = state;
  }
  return state;
}

/**
 * The workspace's guard for this configuration. A different configuration (OpenClaw reloads the
 * plugin when its config changes) closes the old guard first, releasing its ledger.
 */
export function sharedGuard(state: ProcessState, workspaceDir: string, configKey: string, open: () => AdapterGuard): AdapterGuard {
  const existing = state.guards.get(workspaceDir);
  if (existing !== undefined && existing.configKey === configKey) return existing.guard;
  existing?.guard.close();
  const guard = open();
  state.guards.set(workspaceDir, { configKey, guard });
  return guard;
}
