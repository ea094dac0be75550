import type { TrustLevel } from "./trust-levels.js";

/** What a framework says about who produced a turn's message. */
export interface TurnOrigin {
  readonly provider?: string | null;
  readonly spawnedBy?: string | null;
  readonly senderIsOwner?: boolean | null;
  readonly senderId?: string | null;
}

export interface InitialTrust {
  readonly level: TrustLevel;
  readonly reason: string;
}

/**
 * The five rules, in order. Trust follows who produced the message, not where it was sent: the
 * owner in a group chat is trusted, a stranger in a DM is external. The group id plays no part.
 */
export function classifyInitialTrust(origin: TurnOrigin): InitialTrust {
  if (!origin.provider) return { level: "trusted", reason: "system event (no message provider)" };
  if (origin.spawnedBy) return { level: "trusted", reason: `sub-agent of ${origin.spawnedBy}` };
  if (origin.senderIsOwner === true) return { level: "trusted", reason: `owner message (${origin.provider})` };
  if (origin.senderId) return { level: "external", reason: `non-owner sender ${origin.senderId} (${origin.provider})` };
  return { level: "untrusted", reason: `unknown sender (${origin.provider})` };
}
