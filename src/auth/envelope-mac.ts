import type { KeyRing } from "./key-ring.js";
import type { SignableSource } from "./message-source.js";

/** Domain-separation label: a MAC made for anything else under the same key never verifies here. */
export const MSG_AUTH_LABEL = "provenant/msg-auth/v1";

/** Everything a message MAC binds besides the content (RFC-001: content + session + timestamp, and more). */
export interface EnvelopeFields {
  readonly keyId: string;
  readonly source: SignableSource;
  readonly sessionId: string;
  /** Unix time in whole seconds. */
  readonly timestamp: number;
  readonly messageId: string;
  /** Canonical scope token (see action-scope.ts). */
  readonly scope: string;
}

function lengthPrefixed(value: string): Buffer {
  const bytes = Buffer.from(value, "utf8");
  const out = Buffer.allocUnsafe(4 + bytes.length);
  out.writeUInt32BE(bytes.length, 0);
  bytes.copy(out, 4);
  return out;
}

/**
 * The MAC input before the content: each field length-prefixed (u32 big-endian byte count, then
 * UTF-8), the timestamp as u64 big-endian. The content follows as raw UTF-8 with no prefix: it is
 * the last field, so the encoding stays unambiguous and a long message is hashed as it stands.
 */
export function encodeMacHeader(fields: EnvelopeFields): Buffer {
  const ts = Buffer.allocUnsafe(8);
  ts.writeBigUInt64BE(BigInt(fields.timestamp), 0);
  return Buffer.concat([
    lengthPrefixed(MSG_AUTH_LABEL),
    lengthPrefixed(fields.keyId),
    lengthPrefixed(fields.source),
    lengthPrefixed(fields.sessionId),
    ts,
    lengthPrefixed(fields.messageId),
    lengthPrefixed(fields.scope),
  ]);
}

/** HMAC-SHA256 over header and content; undefined when the ring has no key with that id. */
export function computeMessageMac(ring: KeyRing, fields: EnvelopeFields, content: string): Buffer | undefined {
  const hmac = ring.hmac(fields.keyId);
  if (hmac === undefined) return undefined;
  return hmac.update(encodeMacHeader(fields)).update(content, "utf8").digest();
}
