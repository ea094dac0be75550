import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TRUST_LEVELS, minTrust, parseTrustLevel, trustRank } from "../../src/core/trust-levels.js";

describe("Trust Levels", () => {
  it("orders trusted < shared < external < untrusted", () => {
    expect(TRUST_LEVELS.map(trustRank)).toEqual([0, 1, 2, 3]);
  });

  it("minTrust returns the less trusted level and is commutative", () => {
    const level = fc.constantFrom(...TRUST_LEVELS);
    fc.assert(
      fc.property(level, level, (a, b) => {
        const m = minTrust(a, b);
        expect(m).toBe(minTrust(b, a));
        expect(trustRank(m)).toBe(Math.max(trustRank(a), trustRank(b)));
      }),
    );
  });

  it("parseTrustLevel names the value and the allowed levels", () => {
    expect(parseTrustLevel("shared")).toBe("shared");
    expect(() => parseTrustLevel("owner", "taintPolicy key")).toThrow(
      'taintPolicy key: "owner" is not a trust level; expected one of trusted, shared, external, untrusted',
    );
    expect(() => parseTrustLevel("__proto__")).toThrow(/not a trust level/);
  });
});
