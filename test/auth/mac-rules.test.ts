import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkMessageMac, computeMessageMac, type EnvelopeFields } from "../../src/auth/envelope-mac.js";
import { KeyRing } from "../../src/auth/key-ring.js";
import { TOOL_RESULT_LABEL, ToolResultMacs, type ToolResultSeal } from "../../src/auth/tool-result-mac.js";
import { documentedMacHeader } from "./helpers.js";

// Each test builds its ring, fields and reference MAC itself: the mutation runner attributes a
// failure only to work done inside a test.

const SECRET_A = 32;
const SECRET_B = 48;

function makeRing(current = "kA"): KeyRing {
  return KeyRing.fromKeys(
    [
      { id: "kA", secret: Buffer.alloc(SECRET_A, 7), created: "t" },
      { id: "kB", secret: Buffer.alloc(SECRET_B, 9), created: "t" },
    ],
    current,
  );
}

function secretOf(keyId: string): Buffer {
  return keyId === "kA" ? Buffer.alloc(SECRET_A, 7) : Buffer.alloc(SECRET_B, 9);
}

function baseFields(): EnvelopeFields {
  return { keyId: "kA", source: "agent", sessionId: "agent:main:x", timestamp: 1_767_225_600, messageId: "m-1", scope: "read" };
}

/** The message MAC as docs/auth.md describes it, built without the module: HMAC-SHA256 over the documented header, then the content's UTF-8. */
function referenceMac(fields: EnvelopeFields, content: string): Buffer {
  return createHmac("sha256", secretOf(fields.keyId)).update(documentedMacHeader(fields)).update(content, "utf8").digest();
}

/** Both entry points agree with the reference, and a MAC off by one bit is refused. */
function expectMacOf(ring: KeyRing, fields: EnvelopeFields, content: string, label: string): void {
  const mac = referenceMac(fields, content);
  expect(computeMessageMac(ring, fields, content)?.toString("hex"), label).toBe(mac.toString("hex"));
  expect(checkMessageMac(ring, fields, content, mac), label).toBe("ok");
  const flipped = Buffer.from(mac);
  flipped[0] = (flipped[0] ?? 0) ^ 0x80;
  expect(checkMessageMac(ring, fields, content, flipped), label).toBe("bad-mac");
}

// Above the 4 MiB that envelope-mac.ts keeps between calls, an input gets a buffer of exactly the
// size the module computes, whatever earlier tests left behind: a size that is too small shows.
const OVER_KEPT_LIMIT = 4 * 1024 * 1024 + 1024;

describe("message MAC input (RFC-001, docs/auth.md)", () => {
  it("rule: the MAC input is sized for every field, so none is cut short when the fields need 3 bytes a character", () => {
    const ring = makeRing();
    // "€" is one UTF-16 unit and three bytes of UTF-8: the size the module reserves per unit, so
    // the session id leaves no slack that would hide a size computed too small elsewhere (an
    // ASCII prefix would leave 2 bytes a character).
    const sessionId = "€".repeat(Math.ceil(OVER_KEPT_LIMIT / 3));
    const fields: EnvelopeFields = { ...baseFields(), sessionId, messageId: "m".repeat(64), scope: "s".repeat(64) };
    expectMacOf(ring, fields, "", "tight header, no content");
    expectMacOf(ring, { ...fields, keyId: "kB", source: "system" }, "", "tight header, other key and source");
  });

  it("rule: a header kept from an earlier message is reused only in the buffer it was written to", () => {
    const ring = makeRing();
    const x = baseFields();
    const y: EnvelopeFields = { ...x, sessionId: "agent:main:y", source: "human" };
    // Content long enough that its input goes past the kept limit: a buffer of its own.
    const huge = "a".repeat(Math.ceil(OVER_KEPT_LIMIT / 3));
    const steps: [EnvelopeFields, string, string][] = [
      [x, "short", "x short (header kept)"],
      [x, huge, "x long, same header, own buffer"],
      [y, huge, "y long, own buffer"],
      [y, "short", "y short, after y long"],
      [x, "short", "x short again"],
    ];
    for (const [fields, content, label] of steps) expectMacOf(ring, fields, content, label);
  });

  it("rule: a kept header is not reused for another key id", () => {
    const ring = makeRing();
    const first = baseFields();
    expectMacOf(ring, first, "same", "key A");
    expectMacOf(ring, { ...first, keyId: "kB" }, "same", "key B, same source and session");
    expectMacOf(ring, first, "same", "key A again");
  });

  it("rule: message ids and scopes take every printable ASCII character, '!' and '~' included", () => {
    const ring = makeRing();
    expectMacOf(ring, { ...baseFields(), messageId: "!", scope: "~" }, "x", "bounds");
    expectMacOf(ring, { ...baseFields(), messageId: "~!", scope: "!~" }, "x", "bounds swapped");
  });

  it("rule: well-formed content verifies whatever its characters; only a lone surrogate is refused", () => {
    const ring = makeRing();
    for (const content of ["é", "naïve café", "emoji \u{1f600}", "\ufffd is a real character", "日本語"]) expectMacOf(ring, baseFields(), content, content);
    // UTF-8 carries a lone surrogate as U+FFFD: its MAC is that of the text with U+FFFD, and
    // accepting it would let two different texts share one MAC.
    for (const content of ["\ud800", "a\udc00b", "\ufffd\ud83d"]) {
      const sameBytes = referenceMac(baseFields(), content.replace(/[\ud800-\udfff]/gu, "\ufffd"));
      expect(computeMessageMac(ring, baseFields(), content)?.equals(sameBytes), JSON.stringify(content)).toBe(true);
      expect(checkMessageMac(ring, baseFields(), content, sameBytes), JSON.stringify(content)).toBe("ill-formed-unicode");
    }
  });

  it("rule: an unknown key id gives no MAC, whatever the other fields hold", () => {
    const ring = makeRing();
    // The key is looked up first: a field the encoder would refuse does not turn "no such key" into a throw.
    expect(computeMessageMac(ring, { ...baseFields(), keyId: "kZ", messageId: "not printable\u0001" }, "x")).toBeUndefined();
  });
});

/** RFC-001's tool-result MAC, built without the module: HMAC(subkey, tool + "|" + seq + "|" + JSON). */
function toolMac(keyId: string, sessionId: string, tool: string, seq: number, json: string): string {
  const subkey = createHmac("sha256", secretOf(keyId)).update(`${TOOL_RESULT_LABEL}\u0000${sessionId}`, "utf8").digest();
  return createHmac("sha256", subkey).update(`${tool}|${seq}|${json}`, "utf8").digest("hex");
}

describe("tool-result MACs (RFC-001 'Tool-result HMAC')", () => {
  it("rule: a sealed result's MAC is the RFC's formula under the session's derived key", () => {
    const macs = new ToolResultMacs(makeRing());
    const seal = macs.seal("s1", "read_file", { path: "/a", text: "hi" });
    expect(seal).toEqual({ seq: 1, keyId: "kA", mac: toolMac("kA", "s1", "read_file", 1, '{"path":"/a","text":"hi"}') });
  });

  it("rule: the derived key binds key id and session apart: one cannot stand in for the other", () => {
    // Key ids "k1" and "k12", sessions "2x" and "x": run together, "k1"+"2x" and "k12"+"x" are the
    // same text; each pair must still get its own key.
    const ring = KeyRing.fromKeys(
      [
        { id: "k1", secret: Buffer.alloc(32, 1), created: "t" },
        { id: "k12", secret: Buffer.alloc(32, 2), created: "t" },
      ],
      "k12",
    );
    const mac = (secretByte: number, sessionId: string, seq: number): string => {
      const subkey = createHmac("sha256", Buffer.alloc(32, secretByte)).update(`${TOOL_RESULT_LABEL}\u0000${sessionId}`, "utf8").digest();
      return createHmac("sha256", subkey).update(`t|${seq}|1`, "utf8").digest("hex");
    };
    const macs = new ToolResultMacs(ring);
    const underK1: ToolResultSeal = { seq: 1, keyId: "k1", mac: mac(1, "2x", 1) };
    expect(macs.verify("2x", "t", 1, underK1)).toEqual({ ok: true, seq: 1, outOfOrder: false });
    expect(macs.seal("x", "t", 1)).toEqual({ seq: 1, keyId: "k12", mac: mac(2, "x", 1) });
  });

  it("rule: seq counts from 1: a seal for seq 0 or a fraction is refused even with the right MAC", () => {
    const macs = new ToolResultMacs(makeRing());
    for (const seq of [0, -1, 1.5]) {
      const seal: ToolResultSeal = { seq, keyId: "kA", mac: toolMac("kA", "s1", "t", seq, "1") };
      expect(macs.verify("s1", "t", 1, seal), String(seq)).toEqual({ ok: false, check: "bad-mac", reason: "seq is not a positive integer" });
    }
    expect([...macs.verifiedSeqs("s1")]).toEqual([]);
  });

  it("rule: each refusal says what failed, naming the tool, the seq or the key", () => {
    const macs = new ToolResultMacs(makeRing());
    const seal = macs.seal("s1", "web_fetch", { ok: 1 });
    const reasonOf = (v: ReturnType<ToolResultMacs["verify"]>): string => (v.ok ? "verified" : `${v.check}: ${v.reason}`);
    expect(reasonOf(macs.verify("s1", "web_fetch", { ok: 1 }, undefined))).toBe("no-seal: result of web_fetch carries no MAC");
    expect(reasonOf(macs.verify("s1", "", { ok: 1 }, seal))).toBe("bad-tool-name: tool name is empty, too long, or holds '|'");
    expect(reasonOf(macs.verify("s1", "web_fetch", { ok: Number.NaN }, seal))).toMatch(/^not-json: result is not JSON: \S/);
    expect(reasonOf(macs.verify("s1", "web_fetch", { ok: 1 }, { ...seal, keyId: "kZ" }))).toBe("unknown-key: seal names key kZ, which is not active");
    expect(reasonOf(macs.verify("s1", "web_fetch", { ok: 2 }, seal))).toBe(
      "bad-mac: MAC of web_fetch result #1 does not match (altered, fabricated, or from another session)",
    );
    expect(reasonOf(macs.verify("s1", "web_fetch", { ok: 1 }, seal))).toBe("verified");
    expect(reasonOf(macs.verify("s1", "web_fetch", { ok: 1 }, seal))).toBe("reused-seq: result #1 was already fed back");
  });
});
