import { timingSafeEqual } from "node:crypto";

export type ApprovalFailure = "no-pending-code" | "wrong-code" | "expired" | "tool-not-blocked" | "locked-out";

/**
 * What an accepted code approves: the one call it was issued for (the default), every call of
 * that tool for the rest of the turn, or for a number of minutes. The wider scopes are the owner's
 * explicit choice in the command.
 */
export type ApprovalScope = { readonly kind: "call" } | { readonly kind: "turn" } | { readonly kind: "minutes"; readonly minutes: number };

export type ApprovalResult =
  | { readonly ok: true; readonly tools: readonly string[]; readonly until: number | null; readonly scope: ApprovalScope["kind"]; readonly call: string }
  | { readonly ok: false; readonly failure: ApprovalFailure; readonly message: string };

/** One held call: the exact call a code stands for. */
export interface HeldCall {
  readonly tool: string;
  /** The call's arguments in a canonical form (core/call-text.ts): equal arguments, equal keys. */
  readonly key: string;
  /** The call as the owner was shown it. */
  readonly shown: string;
}

interface PendingCode {
  readonly code: string;
  readonly call: HeldCall;
  readonly expiresAt: number;
}

interface Grant {
  readonly tool: string;
  /** The one call approved, or null for every call of the tool. */
  readonly key: string | null;
  /** Absolute expiry in ms, or null for "until the end of the turn it was granted in". */
  readonly until: number | null;
  readonly turnId: string;
}

interface SessionApprovals {
  pending: PendingCode[];
  wrongAttempts: number;
  grants: Grant[];
}

export interface ApprovalCodeOptions {
  readonly ttlMs: number;
  readonly maxWrongAttempts: number;
  /** A CSPRNG: `crypto.randomBytes` in production. */
  readonly randomBytes: (n: number) => Uint8Array;
}

/** Held calls awaiting an answer per session; past this the oldest code is void. */
export const MAX_PENDING_CODES = 16;

/**
 * Approval codes: 8 hex characters from a CSPRNG, one per held call, bound to its session and to
 * that call (tool and exact arguments), valid for a TTL, single-use. A model that repeats the same
 * held call gets the same live code, not a new one. Repeated wrong codes void every pending code
 * of the session, so guessing within the TTL is pointless. Time comes in as an argument: this
 * module has no clock.
 */
export class ApprovalCodes {
  private readonly sessions = new Map<string, SessionApprovals>();

  constructor(private readonly options: ApprovalCodeOptions) {}

  /** The code that stands for this held call, issuing one if none is live. */
  issue(sessionId: string, call: HeldCall, now: number): { code: string; expiresAt: number } {
    const state = this.state(sessionId);
    state.pending = state.pending.filter((p) => p.expiresAt > now);
    const live = state.pending.find((p) => p.call.tool === call.tool && p.call.key === call.key);
    if (live !== undefined) return { code: live.code, expiresAt: live.expiresAt };
    let code = this.newCode();
    while (state.pending.some((p) => p.code === code)) code = this.newCode();
    const pending = { code, call, expiresAt: now + this.options.ttlMs };
    state.pending.push(pending);
    if (state.pending.length > MAX_PENDING_CODES) state.pending.shift();
    return { code, expiresAt: pending.expiresAt };
  }

  /** The owner's `.approve <tool|all> <code> [turn|minutes]`, already known to come from the owner. */
  approve(sessionId: string, tool: string, code: string, scope: ApprovalScope, turnId: string, now: number): ApprovalResult {
    const state = this.state(sessionId);
    if (state.pending.length === 0) {
      return this.wrong(state, "no-pending-code", "there is no pending approval code in this session");
    }
    // Every pending code is compared, in constant time each, so the time taken says nothing about which matched.
    let match: PendingCode | undefined;
    for (const pending of state.pending) if (sameCode(pending.code, code)) match = pending;
    if (match === undefined) return this.wrong(state, "wrong-code", "that approval code is not valid for this session");
    if (match.expiresAt <= now) {
      state.pending = state.pending.filter((p) => p !== match);
      return { ok: false, failure: "expired", message: "that approval code has expired; ask the agent to retry to get a new one" };
    }
    if (tool !== "all" && tool !== match.call.tool) {
      return { ok: false, failure: "tool-not-blocked", message: `the code is for a ${match.call.tool} call, not ${tool}` };
    }
    state.pending = state.pending.filter((p) => p !== match); // single use
    state.wrongAttempts = 0;
    const until = scope.kind === "minutes" ? now + scope.minutes * 60_000 : null;
    state.grants.push({ tool: match.call.tool, key: scope.kind === "call" ? match.call.key : null, until, turnId });
    return { ok: true, tools: [match.call.tool], until, scope: scope.kind, call: match.call.shown };
  }

  /**
   * Whether this exact call may run on the owner's approval. A grant for the one call is spent by
   * it; a grant for the tool stays for the rest of its turn or time.
   */
  takeApproval(sessionId: string, call: Pick<HeldCall, "tool" | "key">, turnId: string, now: number): boolean {
    const state = this.sessions.get(sessionId);
    if (state === undefined) return false;
    if (state.grants.some((g) => g.tool === call.tool && g.key === null && live(g, turnId, now))) return true;
    const index = state.grants.findIndex((g) => g.tool === call.tool && g.key === call.key && live(g, turnId, now));
    if (index === -1) return false;
    state.grants.splice(index, 1);
    return true;
  }

  /** Whether every call of `tool` is approved now (for the tool list shown to the model). */
  isToolApproved(sessionId: string, tool: string, turnId: string, now: number): boolean {
    const state = this.sessions.get(sessionId);
    return state !== undefined && state.grants.some((g) => g.tool === tool && g.key === null && live(g, turnId, now));
  }

  pendingTools(sessionId: string): readonly string[] {
    return [...new Set((this.sessions.get(sessionId)?.pending ?? []).map((p) => p.call.tool))];
  }

  /** Turn-scoped grants (and unspent call grants) end with their turn; timed ones run on; expired ones are dropped. */
  endTurn(sessionId: string, turnId: string, now: number): void {
    const state = this.sessions.get(sessionId);
    if (state === undefined) return;
    state.grants = state.grants.filter((g) => (g.until === null ? g.turnId !== turnId : g.until > now));
  }

  /** `.reset-trust`: pending codes go; granted approvals stay. */
  clearPending(sessionId: string): void {
    const state = this.sessions.get(sessionId);
    if (state !== undefined) {
      state.pending = [];
      state.wrongAttempts = 0;
    }
  }

  private newCode(): string {
    return Buffer.from(this.options.randomBytes(4)).toString("hex");
  }

  private wrong(state: SessionApprovals, failure: ApprovalFailure, message: string): ApprovalResult {
    state.wrongAttempts += 1;
    if (state.wrongAttempts >= this.options.maxWrongAttempts) {
      const hadPending = state.pending.length > 0;
      state.pending = [];
      state.wrongAttempts = 0;
      if (hadPending) {
        return { ok: false, failure: "locked-out", message: `${message}; too many wrong codes, the pending codes are now void` };
      }
    }
    return { ok: false, failure, message };
  }

  private state(sessionId: string): SessionApprovals {
    let state = this.sessions.get(sessionId);
    if (state === undefined) {
      state = { pending: [], wrongAttempts: 0, grants: [] };
      this.sessions.set(sessionId, state);
    }
    return state;
  }
}

function live(grant: Grant, turnId: string, now: number): boolean {
  return grant.until === null ? grant.turnId === turnId : grant.until > now;
}

function sameCode(expected: string, given: string): boolean {
  const a = Buffer.from(expected.toLowerCase(), "utf8");
  const b = Buffer.from(given.toLowerCase(), "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}
