import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkMessageMac, computeMessageMac, encodeMacHeader, type EnvelopeFields } from "../../src/auth/envelope-mac.js";
import { finishOuter, stateAfterBlock } from "../../src/auth/hmac-outer.js";
import { KeyRing } from "../../src/auth/key-ring.js";
import { documentedMacHeader } from "./helpers.js";

// envelope-mac.ts writes the MAC input into one reused buffer (grown, or bypassed above 4 MiB) and
// keeps the header of the last check when the next one has the same key, source and session. Each
// path must give the MAC node:crypto gives over the documented input.
const secretA = Buffer.alloc(32, 7);
const secretB = Buffer.alloc(48, 9);
const ring = KeyRing.fromKeys(
  [
    { id: "kA", secret: secretA, created: "t" },
    { id: "kB", secret: secretB, created: "t" },
  ],
  "kA",
);
const base: EnvelopeFields = { keyId: "kA", source: "agent", sessionId: "agent:main:x", timestamp: 1_767_225_600, messageId: "m-1", scope: "read" };

// Not through encodeMacHeader: that call would itself rewrite the header the module keeps.
function reference(fields: EnvelopeFields, content: string): Buffer {
  const secret = fields.keyId === "kA" ? secretA : secretB;
  return createHmac("sha256", secret).update(documentedMacHeader(fields)).update(content, "utf8").digest();
}

function expectRight(fields: EnvelopeFields, content: string): void {
  const mac = reference(fields, content);
  expect(computeMessageMac(ring, fields, content)?.equals(mac)).toBe(true);
  expect(checkMessageMac(ring, fields, content, mac)).toBe("ok");
  const wrong = Buffer.from(mac);
  wrong[31] = (wrong[31] ?? 0) ^ 1;
  expect(checkMessageMac(ring, fields, content, wrong)).toBe("bad-mac");
}

describe("message MAC through the reused buffer", () => {
  it("is right at every size the buffer meets: empty, past its first 64 KiB, and past the 4 MiB it keeps", () => {
    // First, while the buffer is at its first 64 KiB: fields alone that need more.
    expectRight({ ...base, sessionId: `agent:main:${"s".repeat(70_000)}` }, "hi");
    for (const size of [0, 60_000, 70_000, 4 * 1024 * 1024 + 10]) expectRight(base, "a".repeat(size));
    expectRight({ ...base, messageId: "m".repeat(64), scope: "read,write,send" }, "é".repeat(40_000));
  });

  it("the documented header is encodeMacHeader's", () => {
    expect(encodeMacHeader(base).equals(documentedMacHeader(base))).toBe(true);
  });

  it("rebuilds the kept header when the key, source or session changes between checks", () => {
    const sequence: EnvelopeFields[] = [
      base,
      { ...base, sessionId: "agent:main:y" },
      { ...base, sessionId: "agent:main:y", keyId: "kB" },
      { ...base, sessionId: "agent:main:y", keyId: "kB", source: "system" },
      { ...base, messageId: "m-2", timestamp: base.timestamp + 1 },
      base,
    ];
    for (const fields of sequence) expectRight(fields, "same content");
  });

  it("takes printable ASCII for message ids and scopes, bounds included, and refuses the rest", () => {
    expectRight({ ...base, messageId: "!~" }, "x");
    for (const messageId of [" m", "m\u007f", "m\u00e9"]) {
      expect(() => computeMessageMac(ring, { ...base, messageId }, "x"), JSON.stringify(messageId)).toThrow("message id and scope must be printable ASCII");
    }
  });

  it("an unknown key id gives no MAC and fails the check as unknown-key", () => {
    expect(computeMessageMac(ring, { ...base, keyId: "nope" }, "x")).toBeUndefined();
    expect(checkMessageMac(ring, { ...base, keyId: "nope" }, "x", Buffer.alloc(32))).toBe("unknown-key");
  });
});

describe("the precomputed outer HMAC refuses input of the wrong size", () => {
  it("a block that is not 64 bytes, an inner digest that is not 32", () => {
    expect(() => stateAfterBlock(Buffer.alloc(63))).toThrow("a SHA-256 block is 64 bytes");
    expect(() => stateAfterBlock(Buffer.alloc(65))).toThrow("a SHA-256 block is 64 bytes");
    const state = stateAfterBlock(Buffer.alloc(64, 0x5c));
    expect(() => finishOuter(state, "a".repeat(31), Buffer.alloc(32))).toThrow("the inner digest is 32 bytes");
    expect(() => finishOuter(state, "a".repeat(33), Buffer.alloc(32))).toThrow("the inner digest is 32 bytes");
  });
});
