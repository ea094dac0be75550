import type { Decision } from "../../core/decision.js";
import type { Logger } from "../../core/logger.js";
import { displayText } from "../../core/safe-display.js";
import { applyStoredAnswer, heldCallRecord } from "../../guard-held-calls.js";
import type { Guard, ToolCallInput } from "../../guard.js";
import { awaitAnswer } from "../../state/approval-answer-wait.js";
import { someoneIsWatching } from "../../state/console-presence.js";
import { PendingApprovalStore, type ApprovalAnswer, type PendingApproval } from "../../state/pending-approval-store.js";

/** The call the guard holds, and where: what the inbox needs to record it and to apply an answer. */
export interface HeldCall {
  readonly guard: Pick<Guard, "approve" | "beforeToolCall" | "config">;
  readonly workspaceDir: string;
  readonly sessionId: string;
  /** Where in the gateway: the host's session key, else the agent. */
  readonly origin: string;
  readonly call: ToolCallInput;
  /** The guard's `confirm` decision for the call (it carries the code). */
  readonly decision: Decision;
}

export interface HeldCallInboxOptions {
  readonly logger: Logger;
  /** How long a held call waits for the answer while a console is watching (`approvalWaitSeconds`); 0 never waits. */
  readonly waitMs: number;
  readonly now?: () => number;
  readonly pid?: number;
}

/**
 * OpenClaw's side of the shared pending-approvals store (state/pending-approval-store.ts), the one
 * mechanism every front end answers held calls through: the gateway writes a record for each call
 * the guard holds, waits for the owner's answer while a console has the inbox open (OpenClaw awaits
 * a trusted tool policy, with no time limit of its own, so the wait is bounded here), and applies
 * the answer to the guard holding the call (guard-held-calls.ts). An answer that arrives after the
 * wait applies when the model retries the same call: the guard gives a repeated held call the same
 * code.
 *
 * What the owner answered is what the gateway recorded: before an answer applies, the pending
 * record must still be the one this process wrote for this exact call, so a record an agent
 * rewrote (to make a held call look harmless) approves nothing. The guard's own code check does the
 * rest: an answer counts only for the code it issued for this call, in this session.
 */
export class HeldCallInbox {
  private readonly stores = new Map<string, PendingApprovalStore>();
  private readonly now: () => number;
  private readonly pid: number;

  constructor(private readonly o: HeldCallInboxOptions) {
    this.now = o.now ?? Date.now;
    this.pid = o.pid ?? process.pid;
  }

  /**
   * The call's decision after the store: an answer already given applies at once; otherwise the
   * call is recorded, and while the owner is watching the result is a promise of the decision
   * after the wait (the held decision unchanged when no answer came). Never throws: a store that
   * fails leaves the call held, as the guard decided.
   */
  settle(held: HeldCall): Decision | Promise<Decision> {
    const code = held.decision.code;
    if (held.decision.verdict !== "confirm" || code === undefined) return held.decision;
    try {
      const store = this.store(held.workspaceDir);
      const now = this.now();
      const ours = this.ourRecord(store, held, now);
      const given = store.answerFor(code);
      if (given !== null) return this.apply(store, held, ours, given);
      const watching = this.o.waitMs > 0 && someoneIsWatching(store, now);
      const waitingUntil = watching ? Math.min(now + this.o.waitMs, Date.parse(ours.expiresAt)) : null;
      const record = { ...ours, waitingUntil: waitingUntil === null ? null : new Date(waitingUntil).toISOString() };
      store.sweep(this.pid, now);
      store.hold(record);
      if (waitingUntil === null) return held.decision;
      this.o.logger.info(`session ${held.sessionId}: ${displayText(held.decision.tool)} waits for the owner's answer in the console (code ${code})`);
      return awaitAnswer(store, code, { deadlineMs: waitingUntil, now: this.now }).then((answer) => {
        try {
          if (answer !== null) return this.apply(store, held, record, answer);
          // Nobody answered in time: the record stays, and an answer given later applies on a retry.
          store.hold({ ...record, waitingUntil: null });
        } catch (error) {
          this.o.logger.error(`session ${held.sessionId}: the console's answer to code ${code} could not be read`, error);
        }
        return held.decision;
      });
    } catch (error) {
      this.o.logger.error(`session ${held.sessionId}: could not record held call ${code} for the console`, error);
      return held.decision;
    }
  }

  /** The owner answered in chat (`.approve`, `/approve_tool`, OpenClaw's prompt): the console's record goes. */
  answeredElsewhere(workspaceDir: string, code: string): void {
    try {
      this.store(workspaceDir).remove(code);
    } catch (error) {
      this.o.logger.error(`could not remove the console's record of code ${code}`, error);
    }
  }

  /** The record this process writes for the call (a record it wrote before keeps its times). */
  private ourRecord(store: PendingApprovalStore, held: HeldCall, now: number): PendingApproval {
    const fresh = heldCallRecord({
      decision: held.decision,
      frontEnd: "openclaw",
      origin: held.origin,
      sessionId: held.sessionId,
      now,
      expiresAt: now + held.guard.config.approvalTtlSeconds * 1000,
      waitingUntil: null,
      pid: this.pid,
    });
    const before = store.pending(fresh.code);
    if (before === null || before.pid !== this.pid || !sameCall(before, fresh) || Date.parse(before.expiresAt) <= now) return fresh;
    return { ...fresh, createdAt: before.createdAt, expiresAt: before.expiresAt };
  }

  private apply(store: PendingApprovalStore, held: HeldCall, ours: PendingApproval, answer: ApprovalAnswer): Decision {
    const code = ours.code;
    const shown = store.pending(code);
    store.remove(code);
    if (shown === null || !sameCall(shown, ours)) {
      // The owner answered a record that is not the one written for this call: it approves nothing.
      this.o.logger.warn(`session ${held.sessionId}: an answer to code ${code} ignored: the held call's record was changed or removed after it was written`);
      return held.decision;
    }
    const applied = applyStoredAnswer(held.guard, held.sessionId, held.call, held.decision, answer);
    this.o.logger.info(`session ${held.sessionId}: ${applied.message}`);
    return applied.decision;
  }

  private store(workspaceDir: string): PendingApprovalStore {
    let store = this.stores.get(workspaceDir);
    if (store === undefined) {
      store = new PendingApprovalStore(workspaceDir, (file, detail) => this.o.logger.warn(`approvals store: ${displayText(file)} ${detail}`));
      this.stores.set(workspaceDir, store);
    }
    return store;
  }
}

/** Whether a record shows the same held call: who holds it, where, and exactly what it would run. */
function sameCall(a: PendingApproval, b: PendingApproval): boolean {
  return a.code === b.code && a.pid === b.pid && a.frontEnd === b.frontEnd && a.sessionId === b.sessionId && a.tool === b.tool && a.call === b.call && a.taint === b.taint;
}
