import type { ActionClass } from "../core/action-classes.js";
import type { SourcePermissions } from "./config.js";

/**
 * Where an inbound message came from (RFC-001 "Per-source permissions"): the owner through an
 * authenticated channel, another agent, the gateway itself (cron, heartbeat), or nobody we can name.
 */
export const MESSAGE_SOURCES = ["human", "agent", "system", "unsigned"] as const;
export type MessageSource = (typeof MESSAGE_SOURCES)[number];

/** Sources a gateway may put in an envelope; `unsigned` is by definition never signed. */
export const SIGNABLE_SOURCES = ["human", "agent", "system"] as const;
export type SignableSource = (typeof SIGNABLE_SOURCES)[number];

export function isSignableSource(value: string): value is SignableSource {
  return (SIGNABLE_SOURCES as readonly string[]).includes(value);
}

/**
 * The classes a source may authorise at most. A system turn gets its job's declared classes (or
 * the system default); an unsigned message authorises nothing.
 */
export function sourceAllowance(
  permissions: SourcePermissions,
  source: MessageSource,
  jobId?: string | null,
): Set<ActionClass> {
  switch (source) {
    case "human":
      return new Set(permissions.human);
    case "agent":
      return new Set(permissions.agent);
    case "system": {
      const declared = jobId === null || jobId === undefined ? undefined : permissions.system.jobs[jobId];
      return new Set(declared ?? permissions.system.default);
    }
    case "unsigned":
      return new Set();
  }
}
