/**
 * Per-session, per-turn verification status. A new turn id makes the previous turn's verification
 * worthless, so an agent has to read the authentic templates again after every owner message.
 */
export class SessionSecurityState {
  readonly #turns = new Map<string, { turnId: string; verified: boolean }>();

  resetVerification(sessionId: string, turnId: string): void {
    this.#turns.set(sessionId, { turnId, verified: false });
  }

  /** Only the session's current turn can be marked; a stale turn id changes nothing. */
  setVerified(sessionId: string, turnId: string): boolean {
    const state = this.#turns.get(sessionId);
    if (state === undefined || state.turnId !== turnId) return false;
    state.verified = true;
    return true;
  }

  isVerified(sessionId: string, turnId: string): boolean {
    const state = this.#turns.get(sessionId);
    return state !== undefined && state.turnId === turnId && state.verified;
  }

  currentTurn(sessionId: string): string | undefined {
    return this.#turns.get(sessionId)?.turnId;
  }

  forget(sessionId: string): void {
    this.#turns.delete(sessionId);
  }
}
