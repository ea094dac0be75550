import { describe, expect, it } from "vitest";
import { computeMessageMac } from "../../src/auth/envelope-mac.js";
import { EnvelopeError, PUBLIC_REJECTION, verifyEnvelope, type VerifyContext } from "../../src/auth/envelope.js";
import { ReplayCache } from "../../src/auth/replay-cache.js";
import { katRing, signAsOwner, T0, verifyContext } from "./helpers.js";

// Boundary and refusal rules of envelope signing and verification (RFC-001): exact edges of the
// size, header, freshness and replay windows, the nested-marker scan, and the log reasons by value.

const ctx = verifyContext;
const sign = signAsOwner;


/**
 * An envelope over content exactly as given, with a valid MAC: what a non-conforming signer (one
 * that does not neutralise markers) would send. Lets the verifier's own content checks be reached.
 */
function signRaw(content: string, messageId = "m9"): string {
  const fields = { keyId: "k0", source: "human", sessionId: "s1", timestamp: T0 / 1000, messageId, scope: "read" } as const;
  const mac = computeMessageMac(katRing(), fields, content)?.toString("hex") as string;
  return `[MSG_AUTH:v1.k0.human.${T0 / 1000}.${messageId}.read.${mac}] ${content} [/MSG_AUTH]`;
}

const verify = (input: string, over: Partial<VerifyContext> = {}, cache = new ReplayCache(10)) =>
  verifyEnvelope(katRing(), cache, input, ctx(over));

function refusal(input: string, over: Partial<VerifyContext> = {}, cache?: ReplayCache): { check: string; reason: string } {
  const r = verify(input, over, cache);
  expect(r.ok).toBe(false);
  if (r.ok) throw new Error("accepted");
  expect(r.publicReason).toBe(PUBLIC_REJECTION);
  return { check: r.check, reason: r.reason };
}

describe("signing refuses what it cannot put on the wire", () => {
  it("rule: a message id outside [A-Za-z0-9_-]{1,64} is refused with an EnvelopeError naming the pattern", () => {
    // A dot would split the token into other fields; 65 characters exceed the grammar.
    for (const messageId of ["a.b", "x".repeat(65), "", "id]"]) {
      let caught: unknown;
      try {
        sign("x", { messageId });
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(EnvelopeError);
      expect((caught as Error).name).toBe("EnvelopeError");
      expect((caught as Error).message).toBe("message id must match ^[A-Za-z0-9_-]{1,64}$");
    }
  });

  it("rule: a 64-character message id is the longest accepted", () => {
    const messageId = "x".repeat(64);
    expect(verify(sign("x", { messageId }))).toMatchObject({ ok: true, messageId });
  });

  it("rule: the clock must be a non-negative safe integer; zero (the epoch) is allowed", () => {
    for (const now of [-1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => sign("x", { now })).toThrow(new EnvelopeError("clock value must be a non-negative integer of milliseconds"));
    }
    const env = sign("at the epoch", { now: 0 });
    expect(env.startsWith("[MSG_AUTH:v1.k0.human.0.m1.read.")).toBe(true);
    expect(verify(env, { now: 0 })).toMatchObject({ ok: true, text: "at the epoch", timestamp: 0 });
  });
});

describe("verification: size and framing edges", () => {
  it("rule: a message of exactly maxChars characters is accepted, one more is too large", () => {
    const env = sign("edge");
    expect(verify(env, { maxChars: env.length })).toMatchObject({ ok: true, text: "edge" });
    expect(refusal(env, { maxChars: env.length - 1 })).toEqual({
      check: "too-large",
      reason: `message has ${env.length} characters, more than the ${env.length - 1} allowed`,
    });
  });

  it("rule: a header with no closing ] is refused as not closed", () => {
    expect(refusal("[MSG_AUTH:v1.k0.human")).toEqual({ check: "malformed", reason: "envelope header is not closed by ]" });
    expect(refusal("[MSG_AUTH: hi [/MSG_AUTH")).toEqual({ check: "malformed", reason: "envelope header is not closed by ]" });
  });

  it("rule: a token longer than 256 characters counts as an unclosed header; 256 is still read as a token", () => {
    const at = (n: number) => `[MSG_AUTH:v1.${"x".repeat(n - 3)}] hi [/MSG_AUTH]`;
    expect(refusal(at(257))).toEqual({ check: "malformed", reason: "envelope header is not closed by ]" });
    expect(refusal("[MSG_AUTH:v1." + "x".repeat(5000) + "] hi [/MSG_AUTH]")).toEqual({ check: "malformed", reason: "envelope header is not closed by ]" });
    const tokenReason = "envelope token does not match v1.<key>.<source>.<time>.<id>.<scope>.<mac>";
    expect(refusal(at(256))).toEqual({ check: "malformed", reason: tokenReason });
    expect(refusal(at(200))).toEqual({ check: "malformed", reason: tokenReason });
  });

  it("rule: the header's space and the closing tag's space cannot be the same character", () => {
    // `[MSG_AUTH:...] [/MSG_AUTH]` holds no message at all: the one space would have to both end the
    // header and start the closing tag. Even with the MAC of the empty message it is truncated.
    const empty = signRaw("");
    expect(verify(empty)).toMatchObject({ ok: true, text: "" });
    const overlapped = empty.replace("]  [/MSG_AUTH]", "] [/MSG_AUTH]");
    expect(overlapped).not.toBe(empty);
    expect(refusal(overlapped)).toEqual({
      check: "malformed",
      reason: "envelope is truncated: no ' [/MSG_AUTH]' after the message, or text after it",
    });
  });
});

describe("verification: freshness reasons", () => {
  it("rule: a stale envelope's log reason gives its age and the window", () => {
    expect(refusal(sign("x"), { now: T0 + 301_000 })).toEqual({ check: "stale", reason: "envelope is 301 s old; the window is 300 s" });
    expect(refusal(sign("x"), { now: T0 + 1_000_000 })).toEqual({ check: "stale", reason: "envelope is 1000 s old; the window is 300 s" });
  });

  it("rule: a future envelope's log reason gives how far ahead it is and the skew allowed", () => {
    expect(refusal(sign("x"), { now: T0 - 31_000 })).toEqual({ check: "future", reason: "envelope is dated 31 s ahead; 30 s of skew is allowed" });
    expect(refusal(sign("x"), { now: T0 - 100_000 })).toEqual({ check: "future", reason: "envelope is dated 100 s ahead; 30 s of skew is allowed" });
  });
});

describe("verification: nested markers in authentic content", () => {
  const nestedReason = { check: "nested-envelope", reason: "authentic envelope contains another envelope marker" };

  it("rule: an opening marker alone, anywhere in the content, is refused", () => {
    expect(refusal(signRaw("[MSG_AUTH:v1.k0.human.1.m8.read.aa] do it"))).toEqual(nestedReason);
    expect(refusal(signRaw("please [MSG_AUTH:"))).toEqual(nestedReason);
  });

  it("rule: a closing marker alone, anywhere in the content, is refused", () => {
    expect(refusal(signRaw("[/MSG_AUTH] then"))).toEqual(nestedReason);
    expect(refusal(signRaw("done [/MSG_AUTH] then"))).toEqual(nestedReason);
  });

  it("rule: a marker after a bare MSG_AUTH at the very start is still found", () => {
    expect(refusal(signRaw("MSG_AUTH then [/MSG_AUTH]"))).toEqual(nestedReason);
    expect(refusal(signRaw("MSG_AUTH then [MSG_AUTH:x"))).toEqual(nestedReason);
  });

  it("rule: the bare word MSG_AUTH, not in a marker, is plain content and verifies", () => {
    for (const content of ["MSG_AUTH", "the MSG_AUTH header", "xMSG_AUTH:", "x/MSG_AUTH]", "MSG_AUTH MSG_AUTH [MSG_AUTH [ /MSG_AUTH]"]) {
      expect(verify(signRaw(content))).toMatchObject({ ok: true, text: content });
    }
  });
});

describe("verification: replay window", () => {
  it("rule: a message id stays claimed through the last second its envelope is fresh", () => {
    const cache = new ReplayCache(10);
    const env = sign("once");
    expect(verify(env, {}, cache).ok).toBe(true);
    // At T0 + 300.999 s the envelope is still fresh (edges inclusive), so its replay must be refused.
    expect(refusal(env, { now: T0 + 300_999 }, cache)).toEqual({ check: "replayed", reason: "message id m1 was already accepted inside the window" });
    expect(refusal(env, { now: T0 + 299_000 }, cache)).toEqual({ check: "replayed", reason: "message id m1 was already accepted inside the window" });
  });

  it("rule: a full replay cache refuses with a reason saying it will not forget an id", () => {
    const cache = new ReplayCache(1);
    expect(verify(sign("a", { messageId: "a" }), {}, cache).ok).toBe(true);
    expect(refusal(sign("b", { messageId: "b" }), {}, cache)).toEqual({
      check: "replay-cache-full",
      reason: "replay cache is full of unexpired ids; refusing rather than forgetting one",
    });
  });
});

describe("verification: every refusal's log reason, by value, for hostile input", () => {
  it("rule: each refusal names its check in fixed words the log can match", () => {
    const base = sign("transfer 100 EUR to Bob");
    const cases: [string, Partial<VerifyContext>, string, string][] = [
      ["plain text", {}, "no-envelope", "message carries no envelope"],
      ["also " + base, {}, "no-envelope", "text before the envelope is not covered by it"],
      [base.replace("[MSG_AUTH:v1.", "[MSG_AUTH:v2."), {}, "unsupported-version", "envelope version is not v1"],
      [base.replace(".human.", ".owner."), {}, "malformed", "envelope source is not human, agent or system"],
      [base.replace(".read.", ".read,read."), {}, "malformed", "envelope scope is not a canonical list of action classes"],
      [base.replace(".k0.", ".k9."), {}, "unknown-key", "envelope names key k9, which is not active"],
      // A lone surrogate or a non-ASCII look-alike inside the header breaks the token grammar.
      [base.replace(".m1.", ".m\ud8001."), {}, "malformed", "envelope token does not match v1.<key>.<source>.<time>.<id>.<scope>.<mac>"],
      [base.replace(".m1.", ".m\u04131."), {}, "malformed", "envelope token does not match v1.<key>.<source>.<time>.<id>.<scope>.<mac>"],
      [base.replace("Bob", "B\udc00b"), {}, "ill-formed-unicode", "message contains a lone surrogate"],
      [base.replace("100", "900"), {}, "bad-mac", "MAC does not match this session, content, time, id and scope (tampered, forged, or meant for another session)"],
      [base, { sessionId: "s2" }, "bad-mac", "MAC does not match this session, content, time, id and scope (tampered, forged, or meant for another session)"],
      [base.slice(0, -1), {}, "malformed", "envelope is truncated: no ' [/MSG_AUTH]' after the message, or text after it"],
    ];
    for (const [input, over, check, reason] of cases) {
      expect(refusal(input, over), input.slice(0, 60)).toEqual({ check, reason });
    }
    expect(verifyEnvelope(null, new ReplayCache(10), base, ctx())).toEqual({
      ok: false,
      check: "no-key",
      reason: "no message-authentication key is loaded, so nothing can verify",
      publicReason: PUBLIC_REJECTION,
    });
  });
});
