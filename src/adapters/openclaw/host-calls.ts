import { CODE_BRIDGE_TOOL, TOOL_CALL_TOOL, parentCallId, sanitisedCallId } from "../../core/tool-search.js";

/** Enough for the calls in flight across a gateway's sessions; older ids are long settled. */
const MAX_REMEMBERED = 4096;

/**
 * What the adapter knows of OpenClaw's tool calls that the guard's event model does not carry:
 * which call made an inner Tool Search call (the host puts a sanitised form of the parent's id
 * into the inner call's id), which calls reached `before_tool_call` at all, and which held calls
 * the owner approved in the host's own prompt (those ran).
 */
export class HostCalls {
  private readonly parents = new BoundedMap();
  private readonly decided = new BoundedMap();
  private readonly approved = new BoundedMap();
  private readonly allowed = new BoundedMap();

  /**
   * Notes a call as it reaches `before_tool_call`; returns the id of the call that made it, if
   * that call went ahead (allowed, or approved in the host's prompt). The host makes a wrapped call
   * only for a wrapper it ran, and a call id is the model's to write: an id naming a wrapper that
   * was held is not the host's inner call, and is decided as a call of its own.
   */
  noteCall(sessionId: string, toolCallId: string | undefined, tool: string): string | undefined {
    if (toolCallId === undefined) return undefined;
    this.decided.set(`${sessionId}\u0000${toolCallId}`, toolCallId);
    if (tool === TOOL_CALL_TOOL || tool === CODE_BRIDGE_TOOL) this.parents.set(`${sessionId}\u0000${sanitisedCallId(toolCallId)}`, toolCallId);
    const parent = this.parentOf(sessionId, toolCallId, tool);
    if (parent === undefined) return undefined;
    const key = `${sessionId}\u0000${parent}`;
    return this.allowed.get(key) !== undefined || this.approved.get(key) !== undefined ? parent : undefined;
  }

  /** A call the guard let through (at once, or after the owner's answer in the console). */
  noteAllowed(sessionId: string, toolCallId: string | undefined): void {
    if (toolCallId !== undefined) this.allowed.set(`${sessionId}\u0000${toolCallId}`, toolCallId);
  }

  parentOf(sessionId: string, toolCallId: string | undefined, tool: string): string | undefined {
    if (toolCallId === undefined) return undefined;
    const parent = parentCallId(toolCallId, tool);
    if (parent === null) return undefined;
    return this.parents.get(`${sessionId}\u0000${parent}`) ?? parent;
  }

  noteApproved(sessionId: string, toolCallId: string | undefined): void {
    if (toolCallId !== undefined) this.approved.set(`${sessionId}\u0000${toolCallId}`, toolCallId);
  }

  /**
   * Whether a result's call ran, as far as the host tells: approved in the host's prompt (ran),
   * or an error for a call that never reached `before_tool_call` (the host refused it before any
   * hook, e.g. "Tool x not found"). Undefined: the guard's own record decides.
   */
  ran(sessionId: string, toolCallId: string | undefined, failed: boolean): boolean | undefined {
    if (toolCallId === undefined) return undefined;
    const key = `${sessionId}\u0000${toolCallId}`;
    if (this.approved.get(key) !== undefined) return true;
    if (failed && this.decided.get(key) === undefined) return false;
    return undefined;
  }
}

/** A Map that forgets its oldest entries past {@link MAX_REMEMBERED}. */
class BoundedMap {
  private readonly map = new Map<string, string>();

  set(key: string, value: string): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > MAX_REMEMBERED) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
  }

  get(key: string): string | undefined {
    return this.map.get(key);
  }
}
