import { a2aRequesterKey, SESSION_KEY_PATTERN } from "./session-key.js";

/** What newer OpenClaw attaches to an inter-agent turn in place of the prompt's session lines. */
export interface InputProvenance {
  readonly kind?: string;
  readonly sourceSessionKey?: string;
  readonly sourceChannel?: string;
  readonly sourceTool?: string;
}

export type RequesterCheck =
  | { readonly ok: true; readonly requester: string; readonly peerId: string; readonly via: "inputProvenance" | "systemPrompt" }
  | { readonly ok: false; readonly check: "no-requester" | "not-a-peer"; readonly reason: string };

/**
 * The requesting agent's session key for an inter-agent turn: the framework's `inputProvenance`
 * first (it comes from the gateway's own records), the prompt's requester line otherwise.
 */
export function resolveRequesterKey(input: { systemPrompt: string; inputProvenance?: InputProvenance | null }): {
  key: string;
  via: "inputProvenance" | "systemPrompt";
} | null {
  const p = input.inputProvenance;
  if (p !== undefined && p !== null && p.kind === "inter_session" && typeof p.sourceSessionKey === "string") {
    return SESSION_KEY_PATTERN.test(p.sourceSessionKey) ? { key: p.sourceSessionKey, via: "inputProvenance" } : null;
  }
  const line = a2aRequesterKey(input.systemPrompt);
  return line === null ? null : { key: line, via: "systemPrompt" };
}

/** True when `key` is allowed by one of the peer patterns (`agent:<id>:*` or an exact key). */
export function matchesPeer(key: string, peers: readonly string[]): boolean {
  return peers.some((p) => (p.endsWith(":*") ? key.startsWith(p.slice(0, -1)) : key === p));
}

/**
 * RFC-002's receiver check: an inter-agent message is accepted only from a configured peer. The
 * message is then `agent`-sourced whatever it says about the owner's wishes.
 */
export function checkRequester(
  input: { systemPrompt: string; inputProvenance?: InputProvenance | null },
  peers: readonly string[],
): RequesterCheck {
  const resolved = resolveRequesterKey(input);
  if (resolved === null) return { ok: false, check: "no-requester", reason: "inter-agent message names no requester session key" };
  if (!matchesPeer(resolved.key, peers)) {
    return { ok: false, check: "not-a-peer", reason: `requester ${resolved.key} is not on the peer allow-list` };
  }
  const peerId = resolved.key.split(":")[1] as string;
  return { ok: true, requester: resolved.key, peerId, via: resolved.via };
}
