import type { ActionClass } from "../core/action-classes.js";
import { decodeScope, encodeScope } from "./action-scope.js";
import { checkMessageMac, computeMessageMac, type EnvelopeFields } from "./envelope-mac.js";
import { neutraliseEnvelopes } from "./envelope-markers.js";
import type { KeyRing } from "./key-ring.js";
import { parseEnvelopeToken } from "./envelope-token.js";
import type { SignableSource } from "./message-source.js";
import type { ReplayCache } from "./replay-cache.js";
import { toWellFormed } from "../core/well-formed.js";

/**
 * `[MSG_AUTH:v1.<keyId>.<source>.<timestamp>.<messageId>.<scope>.<mac>] <message> [/MSG_AUTH]`:
 * RFC-001's wrapper, with the fields the MAC binds carried in the token so the receiver can
 * recompute it. The session id is not carried: the receiver supplies its own, which is what makes
 * an envelope replayed into another session fail.
 */
export const ENVELOPE_OPEN = "[MSG_AUTH:";
export const ENVELOPE_CLOSE = " [/MSG_AUTH]";
export const ENVELOPE_VERSION = "v1";
export const MESSAGE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const MAX_TOKEN_CHARS = 256;
const NESTED_CLOSE = "[/MSG_AUTH]";
// Reused for the MAC an envelope carries; verification is synchronous, so calls never overlap.
const GIVEN_MAC = Buffer.alloc(32);

export type VerifyCheck =
  | "no-key"
  | "too-large"
  | "no-envelope"
  | "malformed"
  | "unsupported-version"
  | "unknown-key"
  | "stale"
  | "future"
  | "ill-formed-unicode"
  | "bad-mac"
  | "nested-envelope"
  | "replayed"
  | "replay-cache-full";

/** What the sender is told, whatever failed: enough to know it was refused, nothing to probe with. */
export const PUBLIC_REJECTION = "message could not be authenticated";

export interface VerifiedEnvelope {
  readonly ok: true;
  /** The message as the model may see it: wrapper stripped. */
  readonly text: string;
  readonly scope: ReadonlySet<ActionClass>;
  readonly source: SignableSource;
  readonly messageId: string;
  readonly keyId: string;
  readonly timestamp: number;
}

export interface RejectedEnvelope {
  readonly ok: false;
  /** Which check failed (for our log and for tests). */
  readonly check: VerifyCheck;
  /** Why, in words, for our log only: names the check, never a key or a MAC. */
  readonly reason: string;
  /** For the sender: the same generic sentence whatever failed. */
  readonly publicReason: string;
}

export type EnvelopeVerification = VerifiedEnvelope | RejectedEnvelope;

export interface VerifyContext {
  readonly sessionId: string;
  /** Our clock, in milliseconds since the epoch (injected). */
  readonly now: number;
  readonly freshnessSeconds: number;
  readonly futureSkewSeconds: number;
  readonly maxChars: number;
}

export interface SignRequest {
  readonly text: string;
  readonly sessionId: string;
  readonly source: SignableSource;
  readonly scope: ReadonlySet<ActionClass>;
  /** Milliseconds since the epoch; the envelope carries whole seconds. */
  readonly now: number;
  readonly messageId: string;
}

export class EnvelopeError extends Error {
  override readonly name = "EnvelopeError";
}

/**
 * Wraps a message. The text is neutralised first (any marker in it, look-alikes included, becomes
 * inert) and ill-formed UTF-16 is repaired, so what is signed is exactly what the model will see.
 */
export function signEnvelope(ring: KeyRing, req: SignRequest): string {
  if (!MESSAGE_ID_PATTERN.test(req.messageId)) throw new EnvelopeError(`message id must match ${MESSAGE_ID_PATTERN.source}`);
  if (!Number.isSafeInteger(req.now) || req.now < 0) throw new EnvelopeError("clock value must be a non-negative integer of milliseconds");
  const content = neutraliseEnvelopes(toWellFormed(req.text));
  const fields: EnvelopeFields = {
    keyId: ring.currentId,
    source: req.source,
    sessionId: req.sessionId,
    timestamp: Math.floor(req.now / 1000),
    messageId: req.messageId,
    scope: encodeScope(req.scope),
  };
  const mac = computeMessageMac(ring, fields, content) as Buffer;
  const token = [ENVELOPE_VERSION, fields.keyId, fields.source, fields.timestamp, fields.messageId, fields.scope, mac.toString("hex")].join(".");
  return `${ENVELOPE_OPEN}${token}] ${content}${ENVELOPE_CLOSE}`;
}

function reject(check: VerifyCheck, reason: string): RejectedEnvelope {
  return { ok: false, check, reason, publicReason: PUBLIC_REJECTION };
}

/**
 * Whether verified content still holds an exact envelope marker (a non-conforming signer nests
 * them; conforming ones neutralise content first). Both markers contain MSG_AUTH, so one scan
 * finds every candidate.
 */
function holdsEnvelopeMarker(content: string): boolean {
  for (let i = content.indexOf("MSG_AUTH"); i >= 0; i = content.indexOf("MSG_AUTH", i + 1)) {
    if (i >= 1 && content.startsWith(ENVELOPE_OPEN, i - 1)) return true;
    if (i >= 2 && content.startsWith(NESTED_CLOSE, i - 2)) return true;
  }
  return false;
}

/**
 * Verifies one inbound message that must be exactly one envelope (surrounding whitespace aside).
 * Cheap checks first, the MAC next, and the replay cache last, so that only an authentic envelope
 * can claim a message id. The session comes from the receiver, never from the envelope.
 */
export function verifyEnvelope(
  ring: KeyRing | null,
  replay: ReplayCache,
  input: string,
  ctx: VerifyContext,
): EnvelopeVerification {
  if (ring === null) return reject("no-key", "no message-authentication key is loaded, so nothing can verify");
  if (input.length > ctx.maxChars) return reject("too-large", `message has ${input.length} characters, more than the ${ctx.maxChars} allowed`);
  const text = input.trim();
  if (!text.startsWith(ENVELOPE_OPEN)) {
    return reject("no-envelope", text.includes(ENVELOPE_OPEN) ? "text before the envelope is not covered by it" : "message carries no envelope");
  }
  const tokenEnd = text.indexOf("]", ENVELOPE_OPEN.length);
  if (tokenEnd < 0 || tokenEnd - ENVELOPE_OPEN.length > MAX_TOKEN_CHARS) return reject("malformed", "envelope header is not closed by ]");
  const contentStart = tokenEnd + 2;
  if (text.charCodeAt(tokenEnd + 1) !== 0x20 || !text.endsWith(ENVELOPE_CLOSE) || text.length - ENVELOPE_CLOSE.length < contentStart) {
    return reject("malformed", "envelope is truncated: no ' [/MSG_AUTH]' after the message, or text after it");
  }
  const token = parseEnvelopeToken(text, ENVELOPE_OPEN.length, tokenEnd, GIVEN_MAC);
  if (token === "unsupported-version") return reject("unsupported-version", "envelope version is not v1");
  if (token === "malformed") return reject("malformed", "envelope token does not match v1.<key>.<source>.<time>.<id>.<scope>.<mac>");
  if (token === "unknown-source") return reject("malformed", "envelope source is not human, agent or system");
  const { keyId, source, timestamp, messageId } = token;
  const scope = decodeScope(token.scope);
  if (scope === undefined) return reject("malformed", "envelope scope is not a canonical list of action classes");
  if (!ring.has(keyId)) return reject("unknown-key", `envelope names key ${keyId}, which is not active`);
  const nowSeconds = Math.floor(ctx.now / 1000);
  if (timestamp < nowSeconds - ctx.freshnessSeconds) {
    return reject("stale", `envelope is ${nowSeconds - timestamp} s old; the window is ${ctx.freshnessSeconds} s`);
  }
  if (timestamp > nowSeconds + ctx.futureSkewSeconds) {
    return reject("future", `envelope is dated ${timestamp - nowSeconds} s ahead; ${ctx.futureSkewSeconds} s of skew is allowed`);
  }
  const content = text.slice(contentStart, text.length - ENVELOPE_CLOSE.length);
  const fields: EnvelopeFields = { keyId, source, sessionId: ctx.sessionId, timestamp, messageId, scope: token.scope };
  const mac = checkMessageMac(ring, fields, content, GIVEN_MAC);
  if (mac === "ill-formed-unicode") return reject("ill-formed-unicode", "message contains a lone surrogate");
  if (mac !== "ok") {
    return reject("bad-mac", "MAC does not match this session, content, time, id and scope (tampered, forged, or meant for another session)");
  }
  if (holdsEnvelopeMarker(content)) return reject("nested-envelope", "authentic envelope contains another envelope marker");
  const claim = replay.claim(messageId, timestamp + ctx.freshnessSeconds + 1, nowSeconds);
  if (claim === "replayed") return reject("replayed", `message id ${messageId} was already accepted inside the window`);
  if (claim === "full") return reject("replay-cache-full", "replay cache is full of unexpired ids; refusing rather than forgetting one");
  return { ok: true, text: content, scope, source, messageId, keyId, timestamp };
}
