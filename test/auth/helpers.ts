import { createHash } from "node:crypto";
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
