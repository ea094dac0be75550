import { timingSafeEqual } from "node:crypto";

export type ApprovalFailure = "no-pending-code" | "wrong-code" | "expired" | "tool-not-blocked" | "locked-out";

export type ApprovalResult =
  | { readonly ok: true; readonly tools: readonly string[]; readonly until: number | null }
  | { readonly ok: false; readonly failure: ApprovalFailure; readonly message: string };

interface PendingCode {
  readonly code: string;
  readonly tools: Set<string>;
  readonly expiresAt: number;
}

interface Grant {
  readonly tool: string;
  /** Absolute expiry in ms, or null for "until the end of the turn it was granted in". */
  readonly until: number | null;
  readonly turnId: string;
}

interface SessionApprovals {
  pending: PendingCode | null;
  wrongAttempts: number;
  grants: Grant[];
}

export interface ApprovalCodeOptions {
  readonly ttlMs: number;
  readonly maxWrongAttempts: number;
  /** A CSPRNG: `crypto.randomBytes` in production. */
  readonly randomBytes: (n: number) => Uint8Array;
}

/**
 * Approval codes: 8 hex characters from a CSPRNG, bound to one session, valid for a TTL,
 * single-use. One pending code per session covers every tool blocked since it was issued.
 * Repeated wrong codes invalidate the pending code, so guessing within the TTL is pointless.
 * Time comes in as an argument: this module has no clock.
 */
export class ApprovalCodes {
  private readonly sessions = new Map<string, SessionApprovals>();

  constructor(private readonly options: ApprovalCodeOptions) {}

  /** The code that unblocks `tool` in this session, issuing one if none is live. */
  issue(sessionId: string, tool: string, now: number): { code: string; expiresAt: number; tools: readonly string[] } {
    const state = this.state(sessionId);
    if (state.pending === null || state.pending.expiresAt <= now) {
      const code = Buffer.from(this.options.randomBytes(4)).toString("hex");
      state.pending = { code, tools: new Set(), expiresAt: now + this.options.ttlMs };
    }
    state.pending.tools.add(tool);
    return { code: state.pending.code, expiresAt: state.pending.expiresAt, tools: [...state.pending.tools] };
  }

  /** The owner's `.approve <tool|all> <code> [minutes]`, already known to come from the owner. */
  approve(sessionId: string, tool: string, code: string, minutes: number | null, turnId: string, now: number): ApprovalResult {
    const state = this.state(sessionId);
    const pending = state.pending;
    if (pending === null) {
      return this.wrong(state, "no-pending-code", "there is no pending approval code in this session");
    }
    if (pending.expiresAt <= now) {
      state.pending = null;
      return { ok: false, failure: "expired", message: "that approval code has expired; ask the agent to retry to get a new one" };
    }
    if (!sameCode(pending.code, code)) {
      return this.wrong(state, "wrong-code", "that approval code is not valid for this session");
    }
    const tools = tool === "all" ? [...pending.tools] : pending.tools.has(tool) ? [tool] : [];
    if (tools.length === 0) {
      return { ok: false, failure: "tool-not-blocked", message: `the code does not cover ${tool}; blocked: ${[...pending.tools].join(", ")}` };
    }
    state.pending = null; // single use
    state.wrongAttempts = 0;
    const until = minutes === null ? null : now + minutes * 60_000;
    for (const t of tools) state.grants.push({ tool: t, until, turnId });
    return { ok: true, tools, until };
  }

  isApproved(sessionId: string, tool: string, turnId: string, now: number): boolean {
    const state = this.sessions.get(sessionId);
    if (state === undefined) return false;
    return state.grants.some((g) => g.tool === tool && (g.until === null ? g.turnId === turnId : g.until > now));
  }

  pendingTools(sessionId: string): readonly string[] {
    return [...(this.sessions.get(sessionId)?.pending?.tools ?? [])];
  }

  /** Turn-scoped grants end with their turn; timed ones run on; expired ones are dropped. */
  endTurn(sessionId: string, turnId: string, now: number): void {
    const state = this.sessions.get(sessionId);
    if (state === undefined) return;
    state.grants = state.grants.filter((g) => (g.until === null ? g.turnId !== turnId : g.until > now));
  }

  /** `.reset-trust`: pending codes and the blocked set go; granted approvals stay. */
  clearPending(sessionId: string): void {
    const state = this.sessions.get(sessionId);
    if (state !== undefined) {
      state.pending = null;
      state.wrongAttempts = 0;
    }
  }

  private wrong(state: SessionApprovals, failure: ApprovalFailure, message: string): ApprovalResult {
    state.wrongAttempts += 1;
    if (state.wrongAttempts >= this.options.maxWrongAttempts) {
      const hadPending = state.pending !== null;
      state.pending = null;
      state.wrongAttempts = 0;
      if (hadPending) {
        return { ok: false, failure: "locked-out", message: `${message}; too many wrong codes, the pending code is now void` };
      }
    }
    return { ok: false, failure, message };
  }

  private state(sessionId: string): SessionApprovals {
    let state = this.sessions.get(sessionId);
    if (state === undefined) {
      state = { pending: null, wrongAttempts: 0, grants: [] };
      this.sessions.set(sessionId, state);
    }
    return state;
  }
}

function sameCode(expected: string, given: string): boolean {
  const a = Buffer.from(expected.toLowerCase(), "utf8");
  const b = Buffer.from(given.toLowerCase(), "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}
