import type { Verdict } from "./decision.js";
import { CODE_BRIDGE_TOOL, DISCOVERY_TOOLS, TOOL_CALL_TOOL, discoveryOutputTrust, sameCall, unwrapToolCall, type PlainCall } from "./tool-search.js";
import { minTrust, type TrustLevel } from "./trust-levels.js";

/** A tool call as an adapter reports it, with the id of the host call that made it, if any. */
export interface ReportedCall extends PlainCall {
  readonly id?: string;
  /** The host call this one was made by: a `tool_call` or a code-bridge script (Tool Search). */
  readonly parentId?: string;
}

/** What the guard is to decide for a reported call. */
export type CallToDecide =
  /** Decide `call` (for a `tool_call`, the call it wraps). */
  | { readonly kind: "decide"; readonly call: PlainCall }
  /** The call its `tool_call` parent was decided as: that decision stands (each call is decided once). */
  | { readonly kind: "decided-as-parent"; readonly call: PlainCall; readonly parentId: string };

/** What a reported result stands for. */
export interface ResultMeaning {
  /** False when the call was held or blocked (or the host says it did not run): nothing it says is tool output. */
  readonly ran: boolean;
  /** The tool whose output this is: for a `tool_call`, its target. */
  readonly tool: string;
  /**
   * How far the result can be trusted from what is known of it beyond the tool's catalogue
   * entry: a discovery tool's output, or a parent's that quotes its inner calls' results.
   * Undefined when only the catalogue entry counts.
   */
  readonly atMost?: TrustLevel;
}

interface SessionCalls {
  /** `tool_call`s decided but whose inner call has not come yet, by call id. */
  readonly wrappers: Map<string, PlainCall>;
  /** Calls that were not allowed (held or blocked), by call id: their results are not tool output. */
  readonly notAllowed: Set<string>;
  /** The tool each call's result is the output of, by call id: a wrapper's or a passed inner call's target. */
  readonly targets: Map<string, string>;
  /** The least trusted result of each parent's inner calls, by parent call id. */
  readonly innerTrust: Map<string, TrustLevel>;
}

/**
 * Which calls of a turn were decided how, so that (1) a call made through Tool Search is decided
 * once, as the call it wraps, (2) the result of a call that did not run never changes the taint,
 * and (3) a wrapper's result is trusted no more than the results of the calls it made.
 * Pure bookkeeping, per session, cleared at each turn's start.
 */
export class DecidedCalls {
  private readonly sessions = new Map<string, SessionCalls>();

  /** Starts a turn: nothing of the last one's calls carries over. */
  clear(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** What to decide for a reported call. */
  toDecide(sessionId: string, reported: ReportedCall): CallToDecide {
    const calls = this.session(sessionId);
    if (reported.parentId !== undefined) {
      const parent = calls.wrappers.get(reported.parentId);
      if (parent !== undefined && sameCall(parent, reported)) {
        calls.wrappers.delete(reported.parentId);
        if (reported.id !== undefined) calls.targets.set(reported.id, parent.tool);
        return { kind: "decided-as-parent", call: parent, parentId: reported.parentId };
      }
    }
    return { kind: "decide", call: unwrapToolCall(reported) ?? { tool: reported.tool, params: reported.params } };
  }

  /** Records the verdict a reported call was decided with. */
  decided(sessionId: string, reported: ReportedCall, decided: PlainCall, verdict: Verdict): void {
    if (reported.id === undefined) return;
    const calls = this.session(sessionId);
    // The last verdict for a call id is the one the host acts on: a held call decided again once the
    // owner's answer applied (while the host waited) runs, and its result is tool output.
    if (verdict !== "allow") calls.notAllowed.add(reported.id);
    else calls.notAllowed.delete(reported.id);
    if (reported.tool === TOOL_CALL_TOOL) calls.targets.set(reported.id, decided.tool);
    // A held wrapper may still run once the owner approves it through the host's own prompt.
    if (reported.tool === TOOL_CALL_TOOL && verdict !== "block") calls.wrappers.set(reported.id, decided);
  }

  /**
   * The meaning of a result. `ranPerHost` is the adapter's word: true when the owner approved a
   * held call through the host's prompt, false when the host says the call did not run.
   */
  result(sessionId: string, result: { readonly id?: string; readonly tool: string; readonly output: unknown; readonly ran?: boolean }): ResultMeaning {
    const calls = this.session(sessionId);
    const id = result.id;
    const ran = result.ran ?? !(id !== undefined && calls.notAllowed.has(id));
    // A wrapper whose decision is not on record (no call id) stands for a tool nobody knows.
    const known = id !== undefined ? calls.targets.get(id) : undefined;
    const tool = known ?? (result.tool === TOOL_CALL_TOOL ? "" : result.tool);
    if (!ran) return { ran, tool };
    let atMost: TrustLevel | undefined;
    if (DISCOVERY_TOOLS.has(result.tool) || result.tool === CODE_BRIDGE_TOOL) atMost = discoveryOutputTrust(result.output);
    const inner = id !== undefined ? calls.innerTrust.get(id) : undefined;
    if (inner !== undefined) atMost = atMost === undefined ? inner : minTrust(atMost, inner);
    return atMost === undefined ? { ran, tool } : { ran, tool, atMost };
  }

  /** Records the trust a parent's inner result entered at, so the parent's own result is held to it. */
  innerResult(sessionId: string, parentId: string | undefined, trust: TrustLevel): void {
    if (parentId === undefined) return;
    const calls = this.session(sessionId);
    const known = calls.innerTrust.get(parentId);
    calls.innerTrust.set(parentId, known === undefined ? trust : minTrust(known, trust));
  }

  private session(sessionId: string): SessionCalls {
    let calls = this.sessions.get(sessionId);
    if (calls === undefined) {
      calls = { wrappers: new Map(), notAllowed: new Set(), targets: new Map(), innerTrust: new Map() };
      this.sessions.set(sessionId, calls);
    }
    return calls;
  }
}
