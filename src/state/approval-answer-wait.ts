import type { ApprovalAnswer, PendingApprovalStore } from "./pending-approval-store.js";

/** How often a waiting holder reads the answer file: an owner's click shows within this, well under a second. */
export const ANSWER_POLL_MS = 200;

export interface AwaitAnswerOptions {
  /** The instant (epoch milliseconds, `Date.now()` clock) at which the wait gives up. */
  readonly deadlineMs: number;
  readonly signal?: AbortSignal;
  /** Clock for the deadline (tests); `Date.now` by default. */
  readonly now?: () => number;
}

/**
 * The owner's answer to `code` as soon as a front end writes it (read every `ANSWER_POLL_MS`), or
 * null at the deadline or when `signal` aborts. Polling, not `fs.watch`: a watch misses renames on
 * some file systems and needs the directory to exist; five reads of a missing file a second cost
 * nothing. Never rejects: a read error counts as no answer yet.
 */
export function awaitAnswer(store: PendingApprovalStore, code: string, options: AwaitAnswerOptions): Promise<ApprovalAnswer | null> {
  const now = options.now ?? Date.now;
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (answer: ApprovalAnswer | null): void => {
      if (timer !== undefined) clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(answer);
    };
    const onAbort = (): void => finish(null);
    const look = (): void => {
      timer = undefined;
      let answer: ApprovalAnswer | null = null;
      try {
        answer = store.answerFor(code);
      } catch {
        answer = null;
      }
      if (answer !== null) return finish(answer);
      const left = options.deadlineMs - now();
      if (left <= 0) return finish(null);
      timer = setTimeout(look, Math.min(ANSWER_POLL_MS, left));
    };
    if (options.signal?.aborted === true) return finish(null);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    look();
  });
}
