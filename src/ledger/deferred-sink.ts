import type { AuditRecordType, AuditSink } from "../core/audit-sink.js";

/**
 * Keeps the ledger's hashing, writing and group-commit fsync off the decision path: records are
 * queued in order and appended on the next turn of the event loop, or at once by `flush()`.
 * A process crash can lose at most the records of the current tick, never reorder or corrupt
 * the chain. An append that fails is reported, not thrown into the agent.
 */
export class DeferredAuditSink implements AuditSink {
  private queue: { type: AuditRecordType; data: Readonly<Record<string, unknown>> }[] = [];
  private scheduled = false;

  constructor(
    private readonly target: AuditSink,
    private readonly onError: (error: unknown) => void,
    /** The time each record is stamped with when queued (not when written). */
    private readonly now: () => number,
  ) {}

  record(type: AuditRecordType, data: Readonly<Record<string, unknown>>): void {
    this.queue.push({ type, data: { at: new Date(this.now()).toISOString(), ...data } });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    for (const { type, data } of batch) {
      try {
        this.target.record(type, data);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
