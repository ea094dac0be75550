/**
 * Where the guard and the gates send what must be kept: decisions, approvals, resets, fail-open
 * events, staged writes, signature checks. The ledger implements it; tests plug in their own.
 * Types are RFC-001's entry types (GENESIS is the ledger's own).
 */
export type AuditRecordType = "BOOT" | "CLAIM" | "VERIFY" | "RETRACT" | "META";

export interface AuditSink {
  record(type: AuditRecordType, data: Readonly<Record<string, unknown>>): void;
}

export const NO_AUDIT: AuditSink = { record: () => undefined };
