import { describe, expect, it } from "vitest";
import { computeMac, decodeMac, macMatches, signRequestMac } from "../../src/broker/request-mac.js";

// One MAC, one spelling: decodeMac takes only canonical padded standard base64 of 32 bytes, and
// macMatches answers false (never throws) for a MAC of the wrong length.
const secret = Buffer.from("0123456789abcdef0123456789abcdef");
const fields = { timestamp: "1700000000", tool: "gh", args: ["pr", "list"], cwd: "/w", env: null, nonce: "n" };
const canonical = signRequestMac(secret, fields);

describe("decodeMac", () => {
  it("decodes the canonical spelling to the MAC's 32 bytes", () => {
    expect(canonical).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(decodeMac(canonical)).toEqual(computeMac(secret, fields));
  });

  it("refuses every other spelling of the same bytes, and other lengths", () => {
    // The same 32 bytes with one of the two unused bits of the last symbol set: a lax decoder
    // (Node's among them) reads it as the same MAC.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const trailingBitsSet = `${canonical.slice(0, 42)}${alphabet[alphabet.indexOf(canonical.at(-2) as string) | 1]}=`;
    expect(Buffer.from(trailingBitsSet, "base64")).toEqual(Buffer.from(canonical, "base64"));
    const spellings = [
      `${canonical}\n`,
      `\n${canonical}`,
      `${canonical.slice(0, 20)}\r\n${canonical.slice(20)}`,
      canonical.slice(0, -1),
      canonical.replaceAll("+", "-").replaceAll("/", "_"),
      `x${canonical}`,
      `${canonical}=`,
      canonical.slice(1),
      Buffer.alloc(31, 1).toString("base64"),
      Buffer.alloc(33, 1).toString("base64"),
      "",
      trailingBitsSet,
    ];
    for (const text of spellings) expect(decodeMac(text), JSON.stringify(text)).toBeUndefined();
  });

  it("refuses a 44-character string outside the alphabet", () => {
    expect(decodeMac(`${"*".repeat(42)}A=`)).toBeUndefined();
    expect(decodeMac(`${"A".repeat(42)}B=`)).toBeUndefined();
    expect(decodeMac(`${"A".repeat(42)}A=`)).toEqual(Buffer.alloc(32));
  });
});

describe("macMatches", () => {
  it("is true for the MAC of these fields and false for any other bytes", () => {
    const mac = computeMac(secret, fields);
    expect(macMatches(secret, fields, mac)).toBe(true);
    const flipped = Buffer.from(mac);
    flipped[31] = (flipped[31] as number) ^ 1;
    expect(macMatches(secret, fields, flipped)).toBe(false);
    expect(macMatches(secret, { ...fields, nonce: "m" }, mac)).toBe(false);
  });

  it("is false, not an exception, for a MAC of the wrong length", () => {
    const mac = computeMac(secret, fields);
    expect(macMatches(secret, fields, mac.subarray(0, 31))).toBe(false);
    expect(macMatches(secret, fields, Buffer.concat([mac, Buffer.alloc(1)]))).toBe(false);
    expect(macMatches(secret, fields, Buffer.alloc(0))).toBe(false);
  });
});
