import { createHash } from "node:crypto";
import { MSG_AUTH_LABEL, type EnvelopeFields } from "../../src/auth/envelope-mac.js";
import { signEnvelope, type VerifyContext } from "../../src/auth/envelope.js";
import { KeyRing, type RandomBytes } from "../../src/auth/key-ring.js";
import { parseAuthConfig, type AuthConfig, type AuthConfigInput } from "../../src/auth/config.js";
import { InboundAuthenticator } from "../../src/auth/inbound-authenticator.js";
import type { AuditRecordType, AuditSink } from "../../src/core/audit-sink.js";

/** A deterministic byte stream (SHA-256 in counter mode) so tests repeat exactly. */
export function seededRandom(seed: string): RandomBytes {
  let counter = 0;
  return (n: number) => {
    const out = Buffer.alloc(n);
    let off = 0;
    while (off < n) {
      const block = createHash("sha256").update(`${seed}:${counter++}`).digest();
      off += block.copy(out, off);
    }
    return out;
  };
}

/** The key of the documented known-answer vectors: bytes 0x00..0x1f, id k0. */
export const KAT_KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i));

export function katRing(): KeyRing {
  return KeyRing.fromKeys([{ id: "k0", secret: KAT_KEY, created: "2026-01-01T00:00:00Z" }], "k0");
}

export const T0 = Date.UTC(2026, 0, 1); // 1767225600000

/** A verification context for session s1 at T0, with the documented defaults; `over` changes any of it. */
export function verifyContext(over: Partial<VerifyContext> = {}): VerifyContext {
  return { sessionId: "s1", now: T0, freshnessSeconds: 300, futureSkewSeconds: 30, maxChars: 32 * 1024 * 1024, ...over };
}

/** An envelope of `text` for session s1, signed at T0 as message m1 with scope read. */
export function signAsOwner(text: string, over: Partial<Parameters<typeof signEnvelope>[1]> = {}, ring: KeyRing = katRing()): string {
  return signEnvelope(ring, { text, sessionId: "s1", source: "human", scope: new Set(["read"]), now: T0, messageId: "m1", ...over });
}

/**
 * The message MAC's input before the content, as docs/auth.md describes it and built without the
 * module: the label, key id, source and session id (each a u32 big-endian byte count and UTF-8),
 * the timestamp as u64 big-endian, then message id and scope prefixed the same way.
 */
export function documentedMacHeader(fields: EnvelopeFields): Buffer {
  const field = (value: string): Buffer => {
    const bytes = Buffer.from(value, "utf8");
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const time = Buffer.alloc(8);
  time.writeBigUInt64BE(BigInt(fields.timestamp));
  return Buffer.concat([field(MSG_AUTH_LABEL), field(fields.keyId), field(fields.source), field(fields.sessionId), time, field(fields.messageId), field(fields.scope)]);
}

export class RecordingAudit implements AuditSink {
  readonly records: { type: AuditRecordType; data: Readonly<Record<string, unknown>> }[] = [];
  record(type: AuditRecordType, data: Readonly<Record<string, unknown>>): void {
    this.records.push({ type, data });
  }
}

export function makeAuthenticator(
  config: AuthConfigInput = { mode: "enforce" },
  opts: { keys?: KeyRing | null; seed?: string } = {},
): { auth: InboundAuthenticator; audit: RecordingAudit; config: AuthConfig; keys: KeyRing | null } {
  const random = seededRandom(opts.seed ?? "test");
  const keys = opts.keys === undefined ? KeyRing.generate(random, "2026-01-01T00:00:00Z") : opts.keys;
  const parsed = parseAuthConfig(config);
  const audit = new RecordingAudit();
  return { auth: new InboundAuthenticator({ config: parsed, keys, random, audit }), audit, config: parsed, keys };
}
