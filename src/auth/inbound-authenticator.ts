import type { ActionClass } from "../core/action-classes.js";
import { NO_AUDIT, type AuditSink } from "../core/audit-sink.js";
import { encodeScope, intersectScopes } from "./action-scope.js";
import { authModeFor, type AuthConfig, type AuthMode } from "./config.js";
import {
  ENVELOPE_OPEN,
  PUBLIC_REJECTION,
  signEnvelope,
  verifyEnvelope,
  type EnvelopeVerification,
  type VerifyCheck,
} from "./envelope.js";
import { neutraliseEnvelopes } from "./envelope-markers.js";
import { stripFabricatedToolResults, type StripResult } from "./fabricated-tool-results.js";
import { checkGroundedClaims, type ClaimReport } from "./grounded-claims.js";
import { buildLexicon, IntentInferrer } from "./intent-inference.js";
import type { KeyRing, RandomBytes } from "./key-ring.js";
import { sourceAllowance, type MessageSource, type SignableSource } from "./message-source.js";
import { ReplayCache } from "./replay-cache.js";
import { checkRequester, type InputProvenance, type RequesterCheck } from "./requester.js";
import { ToolResultMacs, type ToolResultSeal, type ToolResultVerification } from "./tool-result-mac.js";

/** Envelopes larger than this are refused before any work is done on them. */
export const MAX_ENVELOPE_CHARS = 32 * 1024 * 1024;

/** How the framework says a turn arrived; the framework, not the message text, decides this. */
export type InboundKind = "channel" | "system" | "inter-agent";

export interface InboundMessage {
  readonly text: string;
  readonly sessionId: string;
  /** Our clock, milliseconds since the epoch. */
  readonly now: number;
  readonly kind: InboundKind;
  readonly agentId?: string | null;
  readonly senderIsOwner?: boolean | null;
  /** For a system turn: the cron or heartbeat job, whose declared classes bound its scope. */
  readonly jobId?: string | null;
  /** For an inter-agent turn: where the requester's identity comes from. */
  readonly interAgent?: { readonly systemPrompt: string; readonly inputProvenance?: InputProvenance | null };
}

export type InboundDecision =
  | {
      readonly accept: true;
      /** The text the model may see: verified content, or neutralised data. */
      readonly text: string;
      readonly source: MessageSource;
      readonly scope: ReadonlySet<ActionClass>;
      readonly messageId: string | null;
      readonly requester: string | null;
      /** Checks that failed but were let through (warn mode), for the log. */
      readonly warnings: readonly string[];
    }
  | { readonly accept: false; readonly check: VerifyCheck | RequesterCheckName; readonly reason: string; readonly publicReason: string };

type RequesterCheckName = Extract<RequesterCheck, { ok: false }>["check"];

export interface InboundAuthenticatorOptions {
  readonly config: AuthConfig;
  /** null when no key is loaded: then nothing verifies (fail closed). */
  readonly keys: KeyRing | null;
  readonly random: RandomBytes;
  readonly audit?: AuditSink;
}

/**
 * The auth module behind one object, pure: the clock comes with each call, randomness and keys
 * with the constructor. The guard calls `authenticateInbound` when a turn starts, the tool-result
 * methods around each call, and `sanitiseModelText` on everything the model wrote.
 */
export class InboundAuthenticator {
  private readonly replay: ReplayCache;
  private readonly inferrer: IntentInferrer;
  private readonly toolMacs: ToolResultMacs | null;
  private readonly audit: AuditSink;

  constructor(private readonly options: InboundAuthenticatorOptions) {
    this.replay = new ReplayCache(options.config.replayCacheSize);
    this.inferrer = new IntentInferrer(buildLexicon(options.config.lexicon.words, options.config.lexicon.replace));
    this.toolMacs = options.keys === null ? null : new ToolResultMacs(options.keys);
    this.audit = options.audit ?? NO_AUDIT;
  }

  get config(): AuthConfig {
    return this.options.config;
  }

  modeFor(agentId: string | null | undefined): AuthMode {
    return authModeFor(this.options.config, agentId);
  }

  /** Deterministic intent inference from the lexicon (before any source cap). */
  inferScope(text: string): Set<ActionClass> {
    return this.inferrer.infer(text);
  }

  signEnvelope(req: {
    text: string;
    sessionId: string;
    now: number;
    source?: SignableSource;
    scope?: ReadonlySet<ActionClass>;
    jobId?: string | null;
    messageId?: string;
  }): string {
    if (this.options.keys === null) throw new Error("no message-authentication key is loaded");
    const source = req.source ?? "human";
    const allowed = sourceAllowance(this.options.config.sources, source, req.jobId);
    const scope = intersectScopes(req.scope ?? this.inferrer.infer(req.text), allowed);
    const messageId = req.messageId ?? Buffer.from(this.options.random(12)).toString("base64url");
    return signEnvelope(this.options.keys, { text: req.text, sessionId: req.sessionId, source, scope, now: req.now, messageId });
  }

  verifyEnvelope(text: string, ctx: { sessionId: string; now: number }): EnvelopeVerification {
    const c = this.options.config;
    const result = verifyEnvelope(this.options.keys, this.replay, text, {
      sessionId: ctx.sessionId,
      now: ctx.now,
      freshnessSeconds: c.freshnessSeconds,
      futureSkewSeconds: c.futureSkewSeconds,
      maxChars: MAX_ENVELOPE_CHARS,
    });
    if (!result.ok) this.audit.record("VERIFY", { event: "envelope-rejected", session: ctx.sessionId, check: result.check, reason: result.reason });
    return result;
  }

  /**
   * Decides what an inbound turn is: who it speaks for, what it authorises, and the text the
   * model gets. In `enforce` mode a channel message that does not verify is refused and never
   * reaches the model; in `warn` mode it goes through as data-with-a-warning; in `off` mode no
   * envelope is checked. Text that is not verified content is always neutralised.
   */
  authenticateInbound(msg: InboundMessage): InboundDecision {
    const mode = this.modeFor(msg.agentId);
    const sources = this.options.config.sources;
    const warnings: string[] = [];
    let requester: string | null = null;

    if (mode === "off") {
      const source: MessageSource = msg.kind === "system" ? "system" : msg.kind === "inter-agent" ? "agent" : "human";
      return this.accept(msg, neutraliseEnvelopes(msg.text), source, sourceAllowance(sources, source, msg.jobId), null, null, warnings);
    }

    if (msg.kind === "inter-agent") {
      const rq = checkRequester(msg.interAgent ?? { systemPrompt: "" }, this.options.config.peers);
      if (!rq.ok) {
        if (mode === "enforce") return this.refuse(msg, rq.check, rq.reason);
        warnings.push(`${rq.check}: ${rq.reason}`);
      } else {
        requester = rq.requester;
      }
    }

    const looksSigned = msg.text.trimStart().startsWith(ENVELOPE_OPEN);
    if (looksSigned || msg.kind === "channel") {
      const v = this.verifyEnvelope(msg.text, msg);
      if (v.ok) {
        const scope = intersectScopes(v.scope, sourceAllowance(sources, v.source, msg.jobId));
        return this.accept(msg, v.text, v.source, scope, v.messageId, requester, warnings);
      }
      if (msg.kind === "channel") {
        if (mode === "enforce") return this.refuse(msg, v.check, v.reason);
        warnings.push(`${v.check}: ${v.reason}`);
      } else {
        warnings.push(`${v.check}: ${v.reason}`);
      }
    }

    // Not verified: the framework's account of the turn decides the source, never the text.
    const source: MessageSource =
      msg.kind === "system" ? "system" : msg.kind === "inter-agent" ? "agent" : msg.senderIsOwner === false ? "unsigned" : "human";
    const allowed = sourceAllowance(sources, source, msg.jobId);
    // A system job's declared classes are its purpose; other sources get what their words ask for.
    const scope = source === "system" ? allowed : intersectScopes(this.inferrer.infer(msg.text), allowed);
    return this.accept(msg, neutraliseEnvelopes(msg.text), source, scope, null, requester, warnings);
  }

  /** For tool outputs, web pages, emails: no envelope in them authenticates anything. */
  neutraliseEnvelopes(text: string): string {
    return neutraliseEnvelopes(text);
  }

  stripFabricatedToolResults(text: string): StripResult {
    return stripFabricatedToolResults(text);
  }

  /** Everything the model wrote, before it is shown or fed back: fabricated results cut, markers made inert. */
  sanitiseModelText(sessionId: string, text: string): StripResult {
    const stripped = stripFabricatedToolResults(text);
    const neutral = neutraliseEnvelopes(stripped.text);
    if (stripped.removed > 0) {
      this.audit.record("META", { event: "fabricated-tool-result", session: sessionId, removed: stripped.removed, shapes: [...stripped.shapes] });
    }
    return { ...stripped, text: neutral };
  }

  macToolResult(sessionId: string, tool: string, result: unknown): ToolResultSeal | null {
    return this.toolMacs === null ? null : this.toolMacs.seal(sessionId, tool, result);
  }

  verifyToolResult(sessionId: string, tool: string, result: unknown, seal: ToolResultSeal | null | undefined): ToolResultVerification {
    if (this.toolMacs === null) return { ok: false, check: "unknown-key", reason: "no key is loaded, so no tool result can verify" };
    const v = this.toolMacs.verify(sessionId, tool, result, seal);
    if (!v.ok) this.audit.record("VERIFY", { event: "tool-result-unverified", session: sessionId, tool, check: v.check, reason: v.reason });
    return v;
  }

  checkGroundedClaims(sessionId: string, text: string): ClaimReport {
    const report = checkGroundedClaims(text, this.toolMacs?.verifiedSeqs(sessionId) ?? new Set());
    if (report.flagged.length > 0) {
      this.audit.record("META", {
        event: "ungrounded-claim",
        session: sessionId,
        flagged: report.flagged.map((f) => ({ tag: f.tag, problem: f.problem, missing: [...f.missing] })),
      });
    }
    return report;
  }

  private accept(
    msg: InboundMessage,
    text: string,
    source: MessageSource,
    scope: ReadonlySet<ActionClass>,
    messageId: string | null,
    requester: string | null,
    warnings: readonly string[],
  ): InboundDecision {
    if (warnings.length > 0) {
      this.audit.record("META", { event: "auth-warning", session: msg.sessionId, source, scope: encodeScope(scope), warnings: [...warnings] });
    }
    return { accept: true, text, source, scope, messageId, requester, warnings };
  }

  private refuse(msg: InboundMessage, check: VerifyCheck | RequesterCheckName, reason: string): InboundDecision {
    this.audit.record("VERIFY", { event: "inbound-refused", session: msg.sessionId, kind: msg.kind, check, reason });
    return { accept: false, check, reason, publicReason: PUBLIC_REJECTION };
  }
}
