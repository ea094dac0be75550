import { HMAC_HEADROOM, type KeyRing } from "./key-ring.js";
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

function prefixed(value: string): Buffer {
  const bytes = Buffer.from(value, "utf8");
  const out = Buffer.alloc(4 + bytes.length);
  out.writeUInt32BE(bytes.length, 0);
  bytes.copy(out, 4);
  return out;
}

const LABEL_BYTES = prefixed(MSG_AUTH_LABEL);

// The MAC input is assembled in this reused buffer and hashed with one update: cheaper than a
// Buffer per message. Everything here is synchronous, so no two calls ever share it.
const SCRATCH_LIMIT = 4 * 1024 * 1024;
let scratch = Buffer.allocUnsafe(64 * 1024);

function putString(buf: Buffer, off: number, value: string): number {
  const n = buf.write(value, off + 4, "utf8");
  buf.writeUInt32BE(n, off);
  return off + 4 + n;
}

// label, key id, source and session id are the same for every message of a session and key:
// their encoding is kept for the last combination seen, which is the common case by far.
let lastPrefix: { keyId: string; source: string; sessionId: string; bytes: Buffer } | null = null;

function sessionPrefix(keyId: string, source: string, sessionId: string): Buffer {
  const last = lastPrefix;
  if (last !== null && last.keyId === keyId && last.source === source && last.sessionId === sessionId) return last.bytes;
  const buf = Buffer.alloc(LABEL_BYTES.length + 12 + 3 * (keyId.length + source.length + sessionId.length));
  let off = LABEL_BYTES.copy(buf, 0);
  off = putString(buf, off, keyId);
  off = putString(buf, off, source);
  off = putString(buf, off, sessionId);
  const bytes = Buffer.from(buf.subarray(0, off));
  lastPrefix = { keyId, source, sessionId, bytes };
  return bytes;
}

/** Message ids and scope tokens are ASCII by their patterns, so a byte per character. */
function putAscii(buf: Buffer, off: number, value: string): number {
  buf.writeUInt32BE(value.length, off);
  return off + 4 + buf.write(value, off + 4, "latin1");
}

const ASCII_FIELD = /^[\x21-\x7e]*$/;

/**
 * The MAC input: each field length-prefixed (u32 big-endian byte count, then UTF-8), the
 * timestamp as u64 big-endian, and last the content as raw UTF-8 with no prefix: it is the last
 * field, so the encoding stays unambiguous and a long message is hashed as it stands. The result
 * is a view of a shared buffer, valid until the next call, with HMAC_HEADROOM bytes before the input.
 */
function macInput(fields: EnvelopeFields, content: string): Buffer {
  const { messageId, scope } = fields;
  if (!ASCII_FIELD.test(messageId) || !ASCII_FIELD.test(scope)) throw new Error("message id and scope must be printable ASCII");
  const prefix = sessionPrefix(fields.keyId, fields.source, fields.sessionId);
  // One UTF-16 unit never needs more than 3 bytes of UTF-8, so `write` below can never truncate.
  const need = HMAC_HEADROOM + prefix.length + 16 + messageId.length + scope.length + 3 * content.length;
  let buf = scratch;
  if (need > buf.length) {
    buf = Buffer.allocUnsafe(need);
    if (need <= SCRATCH_LIMIT) scratch = buf;
  }
  let off = HMAC_HEADROOM + prefix.copy(buf, HMAC_HEADROOM);
  // Timestamps are safe integers (< 2^53): the high word fits a u32 without BigInt.
  buf.writeUInt32BE(Math.floor(fields.timestamp / 0x1_0000_0000), off);
  buf.writeUInt32BE(fields.timestamp >>> 0, off + 4);
  off = putAscii(buf, off + 8, messageId);
  off = putAscii(buf, off, scope);
  off += buf.write(content, off, "utf8");
  return buf.subarray(0, off);
}

/** The MAC input without the content, as its own buffer (for known-answer vectors). */
export function encodeMacHeader(fields: EnvelopeFields): Buffer {
  return Buffer.from(macInput(fields, "").subarray(HMAC_HEADROOM));
}

/** HMAC-SHA256 over header and content; undefined when the ring has no key with that id. */
export function computeMessageMac(ring: KeyRing, fields: EnvelopeFields, content: string): Buffer | undefined {
  return ring.has(fields.keyId) ? ring.macWithHeadroom(fields.keyId, macInput(fields, content)) : undefined;
}
