import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runReplay, type ReplayLine } from "../../src/adapters/replay/replay-runner.js";
import { parseTrace, type TurnEvent } from "../../src/adapters/replay/trace-events.js";
import { encodeScope } from "../../src/auth/action-scope.js";
import { parseAuthConfig, type AuthConfigInput } from "../../src/auth/config.js";
import { InboundAuthenticator, type InboundKind } from "../../src/auth/inbound-authenticator.js";
import { IntentScopeGate } from "../../src/auth/intent-scope-gate.js";
import { loadKeyFile, saveKeyFile } from "../../src/auth/key-file.js";
import { DEFAULT_ACTION_CLASSES, UNKNOWN_TOOL_ACTION_CLASS } from "../../src/core/tool-catalogue.js";
import { Guard } from "../../src/guard.js";
import { katRing, RecordingAudit, seededRandom, T0 } from "./helpers.js";

export const AUTH_TRACE_DIR = join(import.meta.dirname, "traces");

export interface TurnOutcome {
  readonly session: string;
  readonly outcome: string;
}

/**
 * Runs a trace through the real replay runner and guard with the auth module composed in the
 * way the guard is to wire it: each turn authenticated (its `envelope` if it has one) against a
 * key loaded from a key file, the turn's scope given to an IntentScopeGate among the guard's
 * gates, tool results sealed and checked, and model text sanitised and its claims checked before
 * the guard sees the response. A sender id that is a session key (`agent:...`) marks an
 * inter-agent turn; a turn without a provider is a system turn.
 */
export function replayWithAuth(name: string, authConfig: AuthConfigInput = { mode: "enforce", peers: ["agent:roy:*"] }) {
  const dir = mkdtempSync(join(tmpdir(), "provenant-authtrace-"));
  const keyFile = join(dir, "auth.keys");
  saveKeyFile(keyFile, katRing());
  const audit = new RecordingAudit();
  const auth = new InboundAuthenticator({ config: parseAuthConfig(authConfig), keys: loadKeyFile(keyFile), random: seededRandom("trace"), audit });
  const gate = new IntentScopeGate((tool) => DEFAULT_ACTION_CLASSES[tool] ?? UNKNOWN_TOOL_ACTION_CLASS, { audit });
  const turns: TurnOutcome[] = [];
  const flaggedClaims: string[] = [];
  const unverifiedResults: string[] = [];

  const prepareTurn = (event: TurnEvent): TurnEvent => {
    const senderId = event.sender?.id ?? "";
    const kind: InboundKind = senderId.startsWith("agent:") ? "inter-agent" : event.provider == null ? "system" : "channel";
    const d = auth.authenticateInbound({
      text: event.envelope ?? event.text,
      sessionId: event.session,
      now: T0,
      kind,
      agentId: event.agent ?? null,
      senderIsOwner: event.sender?.isOwner ?? null,
      ...(kind === "inter-agent" ? { interAgent: { systemPrompt: "", inputProvenance: { kind: "inter_session", sourceSessionKey: senderId } } } : {}),
    });
    if (!d.accept) {
      gate.clearScope(event.session);
      turns.push({ session: event.session, outcome: `refused:${d.check}` });
      // Nothing of a refused message reaches the model.
      return { ...event, text: "" };
    }
    gate.setScope(event.session, { source: d.source, classes: d.scope });
    turns.push({ session: event.session, outcome: `${d.source}:${encodeScope(d.scope)}` });
    return { ...event, text: d.text };
  };

  const openGuard = (config: Readonly<Record<string, unknown>> | undefined): Guard => {
    const guard = Guard.open({ config, workspaceDir: dir, gates: [gate], audit, now: () => T0 });
    return new Proxy(guard, {
      get(target, prop, receiver) {
        if (prop === "afterToolCall") {
          return (sessionId: string, result: { id?: string; tool: string; output: unknown }) => {
            const seal = auth.macToolResult(sessionId, result.tool, result.output);
            const check = auth.verifyToolResult(sessionId, result.tool, result.output, seal);
            if (!check.ok) unverifiedResults.push(`${result.tool}:${check.check}`);
            return target.afterToolCall(sessionId, result);
          };
        }
        if (prop === "beforeResponse") {
          return (sessionId: string, text: string) => {
            const clean = auth.sanitiseModelText(sessionId, text).text;
            for (const f of auth.checkGroundedClaims(sessionId, clean).flagged) flaggedClaims.push(`${f.tag}:${f.problem}`);
            return target.beforeResponse(sessionId, clean);
          };
        }
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  };

  const lines: ReplayLine[] = runReplay(parseTrace(readFileSync(join(AUTH_TRACE_DIR, name), "utf8")), { openGuard, prepareTurn });
  return { lines, turns, flaggedClaims, unverifiedResults, audit };
}

/** Tool-call lines as `id:verdict` plus the rule's gist, for compact assertions. */
export function outcomes(lines: readonly ReplayLine[]): string[] {
  return lines.flatMap((l) => ("id" in l ? [`${l.id}:${l.verdict}`] : []));
}
