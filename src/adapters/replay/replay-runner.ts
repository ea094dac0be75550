import type { Decision } from "../../core/decision.js";
import type { ProvenanceGraph } from "../../core/provenance-graph.js";
import type { TrustLevel } from "../../core/trust-levels.js";
import type { Guard, ResponseOutcome, TurnStart } from "../../guard.js";
import { TraceError, type NumberedEvent, type TraceEvent, type TurnEvent } from "./trace-events.js";

/** One output line of `provenant replay`, per DESIGN.md. */
export type ReplayLine =
  | { id: string; tool: string; verdict: Decision["verdict"]; taint: TrustLevel; reason: string; code?: string; result?: unknown }
  | { event: "response"; text: string; taint: TrustLevel }
  | { event: "turn_refused"; session: string; reason: string };

export type ReplayStep =
  | { readonly kind: "turn"; readonly line: number; readonly event: TurnEvent; readonly start: TurnStart }
  | { readonly kind: "tool_call"; readonly line: number; readonly event: Extract<TraceEvent, { event: "tool_call" }>; readonly decision: Decision }
  | { readonly kind: "tool_result"; readonly line: number; readonly event: Extract<TraceEvent, { event: "tool_result" }>; readonly taint: TrustLevel }
  | {
      readonly kind: "response";
      readonly line: number;
      readonly session: string;
      readonly text: string;
      readonly taint: TrustLevel;
      readonly outcome: ResponseOutcome;
      /** The turn's provenance graph, sealed. */
      readonly graph: ProvenanceGraph | undefined;
    };

export interface ReplayOptions {
  /** Opens the guard for the trace's configuration (the first line's, or none). */
  readonly openGuard: (config: Readonly<Record<string, unknown>> | undefined) => Guard;
  /** Turns a turn event into what the guard should see (message authentication plugs in here). */
  readonly prepareTurn?: (event: TurnEvent) => TurnEvent;
  readonly onStep?: (step: ReplayStep) => void;
}

/**
 * Drives the guard from a parsed trace, exactly as an adapter would: a turn starts a turn, a
 * tool call is decided, a tool result enters the context, a response ends the turn. `$CODE` in a
 * turn's text stands for the approval code most recently issued in that session.
 */
export function runReplay(events: readonly NumberedEvent[], options: ReplayOptions): ReplayLine[] {
  const first = events[0]?.event;
  const guard = options.openGuard(first?.event === "config" ? first.config : undefined);
  const lines: ReplayLine[] = [];
  const lastCode = new Map<string, string>();
  let session: string | null = null;
  const open = new Set<string>();
  try {
    for (const { line, event } of events) {
      switch (event.event) {
        case "config":
          break;
        case "turn": {
          const code = lastCode.get(event.session);
          if (event.text.includes("$CODE") && code === undefined) {
            throw new TraceError(line, `$CODE used in session ${event.session} before any approval code was issued there`);
          }
          const substituted = code === undefined ? event : { ...event, text: event.text.replaceAll("$CODE", code) };
          const turn = options.prepareTurn ? options.prepareTurn(substituted) : substituted;
          session = turn.session;
          open.add(session);
          const start = guard.beginTurn({
            sessionId: turn.session,
            agentId: turn.agent ?? null,
            sender: turn.sender ?? {},
            provider: turn.provider,
            group: turn.group,
            spawnedBy: turn.spawnedBy,
            text: turn.envelope ?? turn.text,
            ...(turn.messageId !== undefined ? { messageId: turn.messageId } : {}),
            freshSession: turn.fresh ?? false,
            ...(turn.kind !== undefined ? { kind: turn.kind } : {}),
            ...(turn.jobId !== undefined ? { jobId: turn.jobId } : {}),
            ...(turn.systemPrompt !== undefined ? { systemPrompt: turn.systemPrompt } : {}),
            ...(turn.inputProvenance !== undefined ? { inputProvenance: turn.inputProvenance } : {}),
          });
          if (start.authentication?.accepted === false) {
            lines.push({ event: "turn_refused", session: turn.session, reason: start.authentication.publicReason ?? "refused" });
          }
          options.onStep?.({ kind: "turn", line, event: turn, start });
          break;
        }
        case "tool_call": {
          const current = requireSession(session, line);
          const decision = guard.beforeToolCall(current, { id: event.id, tool: event.tool, params: event.params ?? {}, ...(event.parentId !== undefined ? { parentId: event.parentId } : {}) });
          if (decision.code !== undefined) lastCode.set(current, decision.code);
          // The guard's own tools run for real; every other tool's result comes from the trace.
          const ownResult = decision.verdict === "allow" ? guard.runOwnerTool(current, { id: event.id, tool: event.tool, params: event.params ?? {} }) : undefined;
          lines.push({
            id: event.id,
            // What was decided: for a Tool Search `tool_call`, the tool it wraps.
            tool: decision.tool,
            verdict: decision.verdict,
            taint: decision.taint,
            reason: decision.reason,
            ...(decision.code !== undefined ? { code: decision.code } : {}),
            ...(ownResult !== undefined ? { result: ownResult } : {}),
          });
          options.onStep?.({ kind: "tool_call", line, event, decision });
          break;
        }
        case "tool_result": {
          const current = requireSession(session, line);
          const { taint } = guard.afterToolCall(current, {
            id: event.id,
            tool: event.tool,
            output: event.output,
            ...(event.parentId !== undefined ? { parentId: event.parentId } : {}),
            ...(event.ran !== undefined ? { ran: event.ran } : {}),
          });
          options.onStep?.({ kind: "tool_result", line, event, taint });
          break;
        }
        case "response": {
          const current = requireSession(session, line);
          const out = guard.beforeResponse(current, event.text);
          guard.endTurn(current);
          open.delete(current);
          lines.push({ event: "response", text: out.text, taint: out.taint });
          options.onStep?.({ kind: "response", line, session: current, text: out.text, taint: out.taint, outcome: out, graph: guard.graph(current) });
          break;
        }
      }
    }
    for (const s of open) guard.endTurn(s);
  } finally {
    guard.close();
  }
  return lines;
}

function requireSession(session: string | null, line: number): string {
  if (session === null) throw new TraceError(line, "a tool or response event needs a turn event before it");
  return session;
}
