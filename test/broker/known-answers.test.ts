import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { goJsonArgs, goJsonEnv, goJsonString } from "../../src/broker/go-json.js";
import { decodeMac, macMatches, signRequestMac } from "../../src/broker/request-mac.js";

interface Vector {
  name: string;
  tool: string;
  cwd: string;
  args: string[] | null;
  env: Record<string, string> | null;
  hmac: string;
}
const corpus = JSON.parse(readFileSync(join(import.meta.dirname, "../../../shared/corpora/claw-wrap/protocol-v3.json"), "utf8")) as {
  vectors_common: { secret: string; nonce: string; timestamp: string };
  vectors: Vector[];
};
const { secret, nonce, timestamp } = corpus.vectors_common;
const key = Buffer.from(secret, "utf8");

describe("claw-wrap v3 HMAC known answers (from the reference's own auth package)", () => {
  it("has all six vectors", () => expect(corpus.vectors).toHaveLength(6));
  for (const v of corpus.vectors) {
    it(`matches "${v.name}"`, () => {
      const fields = { timestamp, nonce, tool: v.tool, args: v.args, cwd: v.cwd, env: v.env };
      expect(signRequestMac(key, fields)).toBe(v.hmac);
      expect(macMatches(key, fields, decodeMac(v.hmac) as Buffer)).toBe(true);
      expect(macMatches(Buffer.from(`${secret}x`), fields, decodeMac(v.hmac) as Buffer)).toBe(false);
    });
  }
});

describe("Go-compatible JSON", () => {
  it("escapes exactly as encoding/json does", () => {
    expect(goJsonString("a<b>&c")).toBe('"a\\u003cb\\u003e\\u0026c"');
    expect(goJsonString("\u2028\u2029")).toBe('"\\u2028\\u2029"');
    expect(goJsonString("\b\f\n\r\t\u0001\u001f")).toBe('"\\b\\f\\n\\r\\t\\u0001\\u001f"');
    expect(goJsonString('q"b\\')).toBe('"q\\"b\\\\"');
    expect(goJsonString("\u007f é 😀")).toBe('"\u007f é 😀"');
    expect(goJsonString("\ud800x")).toBe('"\\ufffdx"');
    // Lone surrogates at every edge become U+FFFD, as Go writes the invalid UTF-8 they are; pairs stay.
    expect(goJsonString("x\ud83d")).toBe('"x\\ufffd"');
    expect(goJsonString("\udc00x\udfff")).toBe('"\\ufffdx\\ufffd"');
    expect(goJsonString("\udbff\udc00<\ud800\udfff")).toBe('"\udbff\udc00\\u003c\ud800\udfff"');
    expect(goJsonString("\ud800\ud800\udc00")).toBe('"\\ufffd\ud800\udc00"');
    expect(goJsonString("\udbff\ue000")).toBe('"\\ufffd\ue000"');
    expect(goJsonArgs(null)).toBe("null");
    expect(goJsonArgs([])).toBe("[]");
    expect(goJsonEnv({})).toBe("{}");
    expect(goJsonEnv(null)).toBe("{}");
    expect(goJsonEnv({ b: "2", a: "1", "é": "3", Z: "0" })).toBe('{"Z":"0","a":"1","b":"2","é":"3"}');
  });

  it("always parses back to the same value and differs from JSON.stringify only by Go's escapes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (s) => {
        const go = goJsonString(s);
        expect(JSON.parse(go)).toBe(s);
        const normalised = JSON.stringify(s)
          .replace(/</g, "\\u003c")
          .replace(/>/g, "\\u003e")
          .replace(/&/g, "\\u0026")
          .replace(/\u2028/g, "\\u2028")
          .replace(/\u2029/g, "\\u2029");
        expect(go).toBe(normalised);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("MAC decoding", () => {
  const good = corpus.vectors[0]?.hmac as string;
  it("accepts only the canonical spelling of a 32-byte MAC", () => {
    expect(decodeMac(good)?.length).toBe(32);
    for (const bad of [`${good.slice(0, 20)}\n${good.slice(20)}`, `${good}\n`, good.slice(0, -1), `-${good.slice(1)}`, ` ${good}`, "", "=".repeat(44)]) {
      expect(decodeMac(bad)).toBeUndefined();
    }
  });
  it("never accepts two spellings of the same bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.string({ maxLength: 50 }), (bytes, noise) => {
        const canonical = Buffer.from(bytes).toString("base64");
        const other = canonical + noise;
        const decoded = decodeMac(other);
        if (noise !== "") expect(decoded).toBeUndefined();
        expect(decodeMac(canonical)?.equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });
});
