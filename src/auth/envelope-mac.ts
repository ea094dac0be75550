import { timingSafeEqual } from "node:crypto";
import { HMAC_HEADROOM, type KeyRing } from "./key-ring.js";
import type { SignableSource } from "./message-source.js";
import { isWellFormed } from "../core/well-formed.js";

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

function putString(buf: Buffer, off: number, value: string): number {
  const n = buf.write(value, off + 4, "utf8");
  buf.writeUInt32BE(n, off);
  return off + 4 + n;
}

/**
 * Message ids and scope tokens are printable ASCII by their patterns, a byte per character; a
 * loop here is cheaper than a call into the runtime for a few dozen characters.
 */
function putAscii(buf: Buffer, off: number, value: string): number {
  const n = value.length;
  buf.writeUInt32BE(n, off);
  off += 4;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) throw new Error("message id and scope must be printable ASCII");
    buf[off + i] = c;
  }
  return off + n;
}

// Label field, three length prefixes, timestamp, and the prefixes of message id and scope.
const FIXED_BYTES = 4 + Buffer.byteLength(MSG_AUTH_LABEL) + 3 * 4 + 8 + 2 * 4;

// The MAC input is assembled in this reused buffer, HMAC_HEADROOM bytes in, and hashed in one
// piece: cheaper than a Buffer per message. Everything here is synchronous, so no two calls share it.
const SCRATCH_LIMIT = 4 * 1024 * 1024;
let scratch = Buffer.allocUnsafe(64 * 1024);

// Label, key id, source and session id are the same for every message of a session and key, so
// they stay written in the scratch buffer for the last combination seen: the common case by far.
let resident: { keyId: string; source: string; sessionId: string; end: number } | null = null;

function writePrefix(buf: Buffer, keyId: string, source: string, sessionId: string): number {
  let off = putString(buf, HMAC_HEADROOM, MSG_AUTH_LABEL);
  off = putString(buf, off, keyId);
  off = putString(buf, off, source);
  return putString(buf, off, sessionId);
}

/**
 * The MAC input: each field length-prefixed (u32 big-endian byte count, then UTF-8), the
 * timestamp as u64 big-endian, and last the content as raw UTF-8 with no prefix: it is the last
 * field, so the encoding stays unambiguous and a long message is hashed as it stands. Written into
 * a buffer shared between calls, with HMAC_HEADROOM bytes before the input; `end` is where the
 * input ends and `contentBytes` how many of its bytes are the content.
 */
function writeMacInput(fields: EnvelopeFields, content: string): { buf: Buffer; end: number; contentBytes: number } {
  const { keyId, source, sessionId, messageId, scope } = fields;
  // One UTF-16 unit never needs more than 3 bytes of UTF-8, so no `write` below can truncate.
  const need = HMAC_HEADROOM + FIXED_BYTES + 3 * (keyId.length + source.length + sessionId.length) + messageId.length + scope.length + 3 * content.length;
  let buf = scratch;
  if (need > buf.length) {
    buf = Buffer.allocUnsafe(need);
    if (need <= SCRATCH_LIMIT) {
      scratch = buf;
      resident = null;
    }
  }
  let off: number;
  const r = resident;
  if (buf === scratch && r !== null && r.keyId === keyId && r.source === source && r.sessionId === sessionId) {
    off = r.end;
  } else {
    off = writePrefix(buf, keyId, source, sessionId);
    if (buf === scratch) resident = { keyId, source, sessionId, end: off };
  }
  // Timestamps are safe integers (< 2^53): the high word fits a u32 without BigInt.
  buf.writeUInt32BE(Math.floor(fields.timestamp / 0x1_0000_0000), off);
  buf.writeUInt32BE(fields.timestamp >>> 0, off + 4);
  off = putAscii(buf, off + 8, messageId);
  off = putAscii(buf, off, scope);
  const contentBytes = buf.write(content, off, "utf8");
  return { buf, end: off + contentBytes, contentBytes };
}

/** The MAC input without the content, as its own buffer (for known-answer vectors). */
export function encodeMacHeader(fields: EnvelopeFields): Buffer {
  const { buf, end } = writeMacInput(fields, "");
  return Buffer.from(buf.subarray(HMAC_HEADROOM, end));
}

/** HMAC-SHA256 over header and content; undefined when the ring has no key with that id. */
export function computeMessageMac(ring: KeyRing, fields: EnvelopeFields, content: string): Buffer | undefined {
  if (!ring.has(fields.keyId)) return undefined;
  const { buf, end } = writeMacInput(fields, content);
  return ring.macWithHeadroom(fields.keyId, buf.subarray(0, end));
}

const REPLACEMENT_UTF8 = Buffer.from("\ufffd", "utf8");

// Verification is synchronous, so one buffer serves every check.
const EXPECTED_MAC = Buffer.alloc(32);

export type MacCheck = "ok" | "bad-mac" | "ill-formed-unicode" | "unknown-key";

/**
 * Checks `given` against the MAC of fields and content, comparing in constant time. Content with a
 * lone surrogate is refused whatever its MAC: UTF-8 carries it as U+FFFD, so two different texts
 * would share one MAC. Only content whose UTF-8 holds U+FFFD's bytes can have one, and a search of
 * the bytes is far cheaper than checking the string; ASCII content (UTF-8 as long as its UTF-16)
 * needs neither.
 */
export function checkMessageMac(ring: KeyRing, fields: EnvelopeFields, content: string, given: Buffer): MacCheck {
  const { buf, end, contentBytes } = writeMacInput(fields, content);
  if (contentBytes !== content.length && buf.subarray(end - contentBytes, end).includes(REPLACEMENT_UTF8) && !isWellFormed(content)) {
    return "ill-formed-unicode";
  }
  const expected = ring.macWithHeadroom(fields.keyId, buf.subarray(0, end), EXPECTED_MAC);
  if (expected === undefined) return "unknown-key";
  return timingSafeEqual(expected, given) ? "ok" : "bad-mac";
}
