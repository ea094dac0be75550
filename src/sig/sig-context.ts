import type { KeyObject } from "node:crypto";
import type { AuditSink } from "../core/audit-sink.js";
import type { SigConfig } from "./sig-config.js";
import { SigAuditLog } from "./sig-audit-log.js";
import { SigStore } from "./sig-store.js";

/** Everything the signing operations need, gathered once per project. */
export interface SigContext {
  readonly projectRoot: string;
  readonly store: SigStore;
  readonly config: SigConfig;
  readonly clock: () => number;
  readonly audit: SigAuditLog;
  /** When set, every signature must carry a valid detached Ed25519 signature by this key. */
  readonly publicKey?: KeyObject;
  /** When set, signing also writes a detached Ed25519 signature. */
  readonly signingKey?: KeyObject;
}

export interface OpenSigContextOptions {
  readonly clock: () => number;
  readonly audit?: AuditSink;
  readonly publicKey?: KeyObject;
  readonly signingKey?: KeyObject;
}

export function openSigContext(projectRoot: string, options: OpenSigContextOptions): SigContext {
  const store = new SigStore(projectRoot);
  return {
    projectRoot,
    store,
    config: store.loadConfig(),
    clock: options.clock,
    audit: new SigAuditLog(store.auditPath, options.clock, options.audit),
    ...(options.publicKey !== undefined ? { publicKey: options.publicKey } : {}),
    ...(options.signingKey !== undefined ? { signingKey: options.signingKey } : {}),
  };
}
