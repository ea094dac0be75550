import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeMessageMac, encodeMacHeader } from "../../src/auth/envelope-mac.js";
import { parseEnvelopeToken } from "../../src/auth/envelope-token.js";
import { KeyRing } from "../../src/auth/key-ring.js";
import { isSignableSource } from "../../src/auth/message-source.js";

// The v1 grammar as documented, used as the oracle for the hand-written reader.
const GRAMMAR = /^v1\.([A-Za-z0-9_-]{1,32})\.([a-z]{1,16})\.(0|[1-9][0-9]{0,15})\.([A-Za-z0-9_-]{1,64})\.([a-z,]{1,40})\.([0-9a-f]{64})$/;

function oracle(token: string): unknown {
  if (!token.startsWith("v1.")) return "unsupported-version";
  const m = GRAMMAR.exec(token);
  if (m === null) return "malformed";
  const [, keyId, source, ts, messageId, scope, mac] = m as unknown as string[];
  if (!isSignableSource(source as string)) return "unknown-source";
  return { token: { keyId, source, timestamp: Number(ts), messageId, scope }, mac };
}

function parse(token: string): unknown {
  // Embedded as in an envelope, so offsets and the text around the token are exercised too.
  const text = `[MSG_AUTH:${token}] body [/MSG_AUTH]`;
  const mac = Buffer.alloc(32);
  const r = parseEnvelopeToken(text, 10, 10 + token.length, mac);
  return typeof r === "string" ? r : { token: { ...r }, mac: mac.toString("hex") };
}

const piece = fc.oneof(
  fc.constantFrom("v1", "v2", "V1", ".", "..", "k0", "human", "agent", "system", "robot", "0", "00", "01", "1767225600", "9999999999999999", "99999999999999999"),
  fc.constantFrom("m-0001", "read", "read,send", "none", ",", "a".repeat(32), "a".repeat(33), "b".repeat(64), "b".repeat(65), "c".repeat(40), "c".repeat(41)),
  fc.constantFrom("0".repeat(64), "f".repeat(64), "F".repeat(64), "0".repeat(63), "0".repeat(65), "g", "é", "\u0130", "\uff10", " ", "]", "\u0000"),
  fc.string({ maxLength: 6 }),
);

describe("envelope token reader", () => {
  it("agrees with the documented grammar on near-valid and hostile tokens", () => {
    const valid = fc
      .tuple(
        fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/),
        fc.constantFrom("human", "agent", "system", "robot"),
        fc.oneof(fc.constant("0"), fc.stringMatching(/^[1-9][0-9]{0,15}$/)),
        fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
        fc.stringMatching(/^[a-z,]{1,40}$/),
        fc.stringMatching(/^[0-9a-f]{64}$/),
      )
      .map((f) => ["v1", ...f].join("."));
    const mutated = fc.tuple(valid, fc.nat(), fc.nat(3), piece).map(([t, at, del, ins]) => {
      const i = at % (t.length + 1);
      return t.slice(0, i) + ins + t.slice(i + del);
    });
    const joined = fc.array(piece, { maxLength: 9 }).map((p) => p.join("."));
    fc.assert(
      fc.property(fc.oneof(valid, mutated, joined), (token) => {
        expect(parse(token)).toEqual(oracle(token));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("message MAC", () => {
  it("equals HMAC-SHA256 from node:crypto over the documented input, for any key length and content", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 160 }), fc.string({ unit: "grapheme", maxLength: 300 }), fc.nat(2 ** 40), (secret, content, timestamp) => {
        const ring = KeyRing.fromKeys([{ id: "k0", secret, created: "t" }], "k0");
        const fields = { keyId: "k0", source: "agent", sessionId: "agent:main:x", timestamp, messageId: "m-1", scope: "read" } as const;
        const reference = createHmac("sha256", secret).update(encodeMacHeader(fields)).update(content, "utf8").digest("hex");
        expect(computeMessageMac(ring, fields, content)?.toString("hex")).toBe(reference);
      }),
      { numRuns: 300 },
    );
  });
});
