import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseEnvelopeToken, type EnvelopeToken, type TokenFailure } from "../../src/auth/envelope-token.js";

// The header token is attacker-supplied text. These tests pin the refusals of the v1 grammar
// (docs/auth.md, RFC-001) one rule at a time, with hostile spellings, and check that the reader only
// ever looks at the range it is given. Every input is built inside the test that checks it.

type Parsed = { token: EnvelopeToken; mac: string } | TokenFailure;

interface Fields {
  keyId: string;
  source: string;
  timestamp: string;
  messageId: string;
  scope: string;
  mac: string;
}

function hex64(): string {
  // Starts with digits on purpose: digits are outside the source field's class.
  return "0123456789abcdef".repeat(4);
}

function fields(over: Partial<Fields> = {}): Fields {
  return { keyId: "k0", source: "human", timestamp: "1767225600", messageId: "m-0001", scope: "read,send", mac: hex64(), ...over };
}

function token(over: Partial<Fields> = {}): string {
  const f = fields(over);
  return ["v1", f.keyId, f.source, f.timestamp, f.messageId, f.scope, f.mac].join(".");
}

/** Reads `text[start, end)`; the MAC buffer starts dirty so a refused token cannot pass for zeros. */
function parseAt(text: string, start: number, end: number): Parsed {
  const mac = Buffer.alloc(32, 0xee);
  const r = parseEnvelopeToken(text, start, end, mac);
  return typeof r === "string" ? r : { token: { ...r }, mac: mac.toString("hex") };
}

/** Reads a token placed after `before` and followed by `after`, over exactly the token's range. */
function parseIn(tok: string, before = "[MSG_AUTH:", after = "] body [/MSG_AUTH]"): Parsed {
  return parseAt(before + tok + after, before.length, before.length + tok.length);
}

function accepted(over: Partial<Fields> = {}): Parsed {
  const f = fields(over);
  return {
    token: { keyId: f.keyId, source: f.source as EnvelopeToken["source"], timestamp: Number(f.timestamp), messageId: f.messageId, scope: f.scope },
    mac: f.mac,
  };
}

describe("envelope token: field lengths", () => {
  it("rule: each field may be exactly as long as the grammar allows, and one more is malformed", () => {
    // Longest allowed: key 32, source 16 (not signable, so it gets past the grammar only to be
    // refused as unknown), timestamp 16 digits, message id 64, scope 40.
    expect(parseIn(token({ keyId: "K".repeat(32) }))).toEqual(accepted({ keyId: "K".repeat(32) }));
    expect(parseIn(token({ keyId: "K".repeat(31) }))).toEqual(accepted({ keyId: "K".repeat(31) }));
    expect(parseIn(token({ keyId: "K".repeat(33) }))).toBe("malformed");
    expect(parseIn(token({ source: "s".repeat(16) }))).toBe("unknown-source");
    expect(parseIn(token({ source: "s".repeat(17) }))).toBe("malformed");
    expect(parseIn(token({ timestamp: "1".repeat(16) }))).toEqual(accepted({ timestamp: "1".repeat(16) }));
    expect(parseIn(token({ timestamp: "1".repeat(17) }))).toBe("malformed");
    expect(parseIn(token({ messageId: "-".repeat(64) }))).toEqual(accepted({ messageId: "-".repeat(64) }));
    expect(parseIn(token({ messageId: "_".repeat(63) }))).toEqual(accepted({ messageId: "_".repeat(63) }));
    expect(parseIn(token({ messageId: "-".repeat(65) }))).toBe("malformed");
    expect(parseIn(token({ scope: ",".repeat(40) }))).toEqual(accepted({ scope: ",".repeat(40) }));
    expect(parseIn(token({ scope: "a".repeat(41) }))).toBe("malformed");
    expect(parseIn(token({ mac: hex64().slice(1) }))).toBe("malformed");
    expect(parseIn(token({ mac: hex64() + "0" }))).toBe("malformed");
  });

  it("rule: an empty field is malformed, wherever it is", () => {
    for (const name of ["keyId", "source", "timestamp", "messageId", "scope", "mac"] as const) {
      expect(parseIn(token({ [name]: "" })), name).toBe("malformed");
    }
    // A doubled separator is the same thing spelt differently.
    expect(parseIn("v1..k0.human.1.m.read." + hex64())).toBe("malformed");
    expect(parseIn("v1.k0.human.1..m.read." + hex64())).toBe("malformed");
  });
});

describe("envelope token: version and source", () => {
  it("rule: a range shorter than `v1.` is another version, even when the text after it reads `v1.`", () => {
    const text = "[MSG_AUTH:" + token() + "]";
    expect(parseAt(text, 10, 10)).toBe("unsupported-version");
    expect(parseAt(text, 10, 11)).toBe("unsupported-version");
    expect(parseAt(text, 10, 12)).toBe("unsupported-version");
    expect(parseAt("v1", 0, 2)).toBe("unsupported-version");
    // Exactly `v1.` is version 1 with nothing after it: a grammar error, not another version.
    expect(parseAt(text, 10, 13)).toBe("malformed");
    expect(parseIn("v1.")).toBe("malformed");
    for (const v of ["v2", "V1", "v10", "v", "1", " v1", "v1 ", "\uff561"]) {
      expect(parseIn([v, "k0", "human", "1", "m", "read", hex64()].join(".")), v).toBe("unsupported-version");
    }
  });

  it("rule: the source is exactly human, agent or system; a longer or shorter word is unknown", () => {
    for (const source of ["human", "agent", "system"]) expect(parseIn(token({ source }))).toEqual(accepted({ source }));
    for (const source of ["humans", "humanagent", "agents", "agentx", "systems", "systemd", "huma", "agen", "syste", "robot", "unsigned"]) {
      expect(parseIn(token({ source })), source).toBe("unknown-source");
    }
    // Out of the lower-case class it is a grammar error, not an unknown source.
    for (const source of ["Human", "hum-an", "human1", "h\u0131man", "hum\u00e0n"]) expect(parseIn(token({ source })), source).toBe("malformed");
  });
});

describe("envelope token: timestamp", () => {
  it("rule: a timestamp has no leading zero, but is allowed to be 0", () => {
    expect(parseIn(token({ timestamp: "0" }))).toEqual(accepted({ timestamp: "0" }));
    for (const timestamp of ["00", "01", "007", "01767225600", "0".repeat(16), "-1", "+1", "1e9", "1_000", " 1", "1.5", "\uff11"]) {
      expect(parseIn(token({ timestamp })), timestamp).toBe("malformed");
    }
  });

  it("rule: a 16-digit timestamp is read as the number it spells", () => {
    for (const timestamp of ["1000000000000000", "9007199254740993", "9999999999999999", "1767225600000000"]) {
      const r = parseIn(token({ timestamp }));
      expect(r, timestamp).toEqual(accepted({ timestamp }));
      expect(typeof r === "string" ? r : r.token.timestamp).toBe(Number(timestamp));
    }
  });
});

describe("envelope token: MAC", () => {
  it("rule: the MAC is 64 lower-case hex digits; any other character in either digit of a pair is malformed", () => {
    const good = hex64();
    expect(parseIn(token({ mac: good }))).toEqual(accepted({ mac: good }));
    // U+0080 is the first character past ASCII: the boundary of the reader's lookup table.
    const hostile = ["\u0080", "\u00ff", "\u0100", "\ud800", "\udfff", "\uff10", "A", "F", "g", "G", " ", "=", "+", "/", "-", ".", "\u0000", "\u007f"];
    for (const ch of hostile) {
      for (const at of [0, 1, 30, 31, 62, 63]) {
        const mac = good.slice(0, at) + ch + good.slice(at + 1);
        expect(parseIn(token({ mac })), `${JSON.stringify(ch)} at ${at}`).toBe("malformed");
      }
    }
    // A `0x` prefix or base64 padding in place of the first or last digits.
    expect(parseIn(token({ mac: "0x" + good.slice(2) }))).toBe("malformed");
    expect(parseIn(token({ mac: good.slice(0, 62) + "==" }))).toBe("malformed");
  });
});

describe("envelope token: separators, whitespace and other alphabets", () => {
  it("rule: whitespace, other separators and non-ASCII look-alikes inside a field are malformed", () => {
    const cases: Partial<Fields>[] = [
      { keyId: "k 0" }, { keyId: "k\t0" }, { keyId: "k0\n" }, { keyId: "k\u00a0" }, { keyId: "k:0" }, { keyId: "k,0" }, { keyId: "k\u00e90" },
      { keyId: "\ud800" }, { keyId: "k\udc00" }, { keyId: "k\u200b0" }, { keyId: "\uff4b0" },
      { messageId: "m 1" }, { messageId: "m/1" }, { messageId: "m+1" }, { messageId: "m=" }, { messageId: "m\ud83d" }, { messageId: "m,1" },
      { scope: "read send" }, { scope: "read;send" }, { scope: "Read" }, { scope: "read1" }, { scope: "read-send" }, { scope: "r\u0435ad" },
      { timestamp: "1\u0000" },
    ];
    for (const over of cases) expect(parseIn(token(over)), JSON.stringify(over)).toBe("malformed");
    // Trailing or leading separators and text after the MAC.
    expect(parseIn(token() + ".")).toBe("malformed");
    expect(parseIn(token() + " ")).toBe("malformed");
    expect(parseIn("v1.." + token().slice(3))).toBe("malformed");
    expect(parseIn(token().replace(".human.", "\u2024human."))).toBe("malformed");
  });
});

describe("envelope token: the range it is given", () => {
  it("rule: text before the token never completes a broken field (the reader never steps back out of its range)", () => {
    const mac = hex64();
    // Each text has a token with one broken field placed after a prefix that, read together with
    // the rest of the token, would spell a well-formed token (or one with an unknown source).
    // Broken key id (a comma): `human.5.mv1.a,b.<mac>` is a whole token from offset 0.
    const brokenKey = "human.5.mv1.a,b." + mac;
    expect(parseAt(brokenKey, 9, brokenKey.length)).toBe("malformed");
    // Broken source (the MAC's digits): `5.v1.k.<mac>` is timestamp, id, scope, MAC from offset 0.
    const brokenSource = "5.v1.k." + mac;
    expect(parseAt(brokenSource, 2, brokenSource.length)).toBe("malformed");
    // Source with a comma, which the scope field that follows would accept.
    const commaSource = "xv1.k.a,b." + mac;
    expect(parseAt(commaSource, 1, commaSource.length)).toBe("malformed");
    // Source one letter too long, which the scope field would accept.
    const longSource = "xv1.k." + "a".repeat(17) + "." + mac;
    expect(parseAt(longSource, 1, longSource.length)).toBe("malformed");
    // The same tokens read on their own.
    expect(parseAt(brokenKey.slice(9), 0, brokenKey.length - 9)).toBe("malformed");
    expect(parseAt(commaSource.slice(1), 0, commaSource.length - 1)).toBe("malformed");
  });

  it("rule: a token's verdict does not depend on the text around its range (property)", () => {
    const around = fc.oneof(
      fc.constantFrom("", "x", "[MSG_AUTH:", "human.5.m", "5.", "5.m", "human.", "human.5.", "a,b.", "v1.k0.", "0123456789abcdef"),
      fc.string({ maxLength: 12 }),
    );
    const field = fc.constantFrom("", "k0", "K".repeat(32), "K".repeat(33), "human", "humans", "a,b", "a".repeat(17), "0", "01", "1767225600", "m-1", "read", ",", "\u0080", " ");
    const tok = fc.oneof(
      fc.array(field, { minLength: 1, maxLength: 6 }).map((f) => ["v1", ...f, hex64()].join(".")),
      fc.constantFrom(token(), token({ source: "agent" }), token({ mac: "\u0080" + hex64().slice(1) })),
    );
    fc.assert(
      fc.property(around, tok, around, (before, t, after) => {
        expect(parseIn(t, before, after)).toEqual(parseAt(t, 0, t.length));
      }),
      { numRuns: 1500 },
    );
  });

  it("rule: well-formed fields round-trip; any single character from outside a field's class is refused (property)", () => {
    const valid = fc.record({
      keyId: fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/),
      source: fc.constantFrom("human", "agent", "system"),
      timestamp: fc.oneof(fc.constant("0"), fc.stringMatching(/^[1-9][0-9]{0,15}$/)),
      messageId: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
      scope: fc.stringMatching(/^[a-z,]{1,40}$/),
      mac: fc.stringMatching(/^[0-9a-f]{64}$/),
    });
    const classes: Record<keyof Fields, RegExp> = {
      keyId: /^[A-Za-z0-9_-]$/,
      source: /^[a-z]$/,
      timestamp: /^[0-9]$/,
      messageId: /^[A-Za-z0-9_-]$/,
      scope: /^[a-z,]$/,
      mac: /^[0-9a-f]$/,
    };
    const outsider = fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), fc.constantFrom("\u0080", "\ud800", "\udc00", ".", " ", "A", ","));
    fc.assert(
      fc.property(valid, fc.constantFrom(...(Object.keys(classes) as (keyof Fields)[])), fc.nat(), outsider, (f, name, at, ch) => {
        expect(parseIn(token(f))).toEqual(accepted(f));
        if (classes[name].test(ch)) return;
        const v = f[name];
        const i = at % v.length;
        const broken = { ...f, [name]: v.slice(0, i) + ch + v.slice(i + 1) };
        // A dot splits the field in two, which moves every later field; still never accepted.
        expect(parseIn(token(broken))).toBe("malformed");
      }),
      { numRuns: 300 },
    );
  });
});
