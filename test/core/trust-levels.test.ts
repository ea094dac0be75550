import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { mostPermissiveMode, strictestMode } from "../../src/core/policy-modes.js";
import { TRUST_EMOJI, TRUST_LEVELS, TrustLevelError, lessTrusted, minTrust, parseTrustLevel, trustRank } from "../../src/core/trust-levels.js";

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

describe("comparisons a policy decision rests on", () => {
  it("lessTrusted is strict: a level is never less trusted than itself", () => {
    for (const a of TRUST_LEVELS) {
      for (const b of TRUST_LEVELS) expect(lessTrusted(a, b), `${a} < ${b}`).toBe(trustRank(a) > trustRank(b));
      expect(lessTrusted(a, a)).toBe(false);
    }
  });

  it("strictestMode and mostPermissiveMode pick by strictness, whatever the order", () => {
    expect(strictestMode("allow", "confirm")).toBe("confirm");
    expect(strictestMode("confirm", "allow")).toBe("confirm");
    expect(strictestMode("restrict", "confirm")).toBe("restrict");
    expect(strictestMode("confirm", "restrict")).toBe("restrict");
    expect(mostPermissiveMode(["restrict", "confirm", "allow"])).toBe("allow");
    expect(mostPermissiveMode(["restrict", "confirm"])).toBe("confirm");
    expect(mostPermissiveMode(["restrict"])).toBe("restrict");
    expect(mostPermissiveMode([])).toBeUndefined();
  });

  it("a bad level is a TrustLevelError naming where it was found, the value and the levels", () => {
    const error = (() => {
      try {
        parseTrustLevel("owner");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(TrustLevelError);
    expect((error as Error).name).toBe("TrustLevelError");
    expect((error as Error).message).toBe('trust level: "owner" is not a trust level; expected one of trusted, shared, external, untrusted');
  });

  it("each level has its own marker in displays", () => {
    expect(TRUST_EMOJI).toEqual({ trusted: "🟢", shared: "🟡", external: "🟠", untrusted: "🔴" });
  });
});
