import { describe, expect, it } from "vitest";
import { ReplayCache } from "../../src/auth/replay-cache.js";

/*
 * Rules of the replay cache that the reference-model property test does not reach: it never looks at
 * `size`, never uses a capacity large enough to matter for memory, never runs the clock before zero, and
 * its few ids never share half of a fingerprint.
 */
describe("replay cache rules", () => {
  it("rule: a capacity that is not a positive safe integer is refused with a message saying so", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => new ReplayCache(bad)).toThrow(new RangeError("replay cache capacity must be a positive integer"));
    }
  });

  it("rule: memory follows the ids held, not the configured bound (any safe-integer capacity works)", () => {
    // A bound this large would be a table of 2^53 slots if allocated up front or on growth; the cache must
    // start small and grow only with use, here through one growth past the starting table.
    const cache = new ReplayCache(2 ** 52);
    const now = 1_000;
    for (let i = 0; i < 600; i++) expect(cache.claim(`g${i}`, now + 60, now)).toBe("claimed");
    expect(cache.size).toBe(600);
    expect(cache.claim("g0", now + 60, now + 1)).toBe("replayed");
    expect(cache.claim("g599", now + 60, now + 1)).toBe("replayed");
  });

  it("rule: the table grows, then shrinks when ids expire, without losing a live id or keeping an expired one", () => {
    // Capacity 700: 600 ids grow the table past its starting size; 550 of them then expire, and the claim
    // that finds the cache full re-lays the table around the 150 still live, sized down again.
    const cache = new ReplayCache(700);
    for (let i = 0; i < 600; i++) expect(cache.claim(`s${i}`, i < 550 ? 10 : 1_000, 0)).toBe("claimed");
    expect(cache.size).toBe(600);
    for (let i = 0; i < 100; i++) expect(cache.claim(`t${i}`, 1_000, 20)).toBe("claimed");
    expect(cache.claim("u0", 1_000, 20)).toBe("claimed");
    expect(cache.size).toBe(151);
    for (let i = 550; i < 600; i++) expect(cache.claim(`s${i}`, 1_000, 21)).toBe("replayed");
    for (let i = 0; i < 100; i++) expect(cache.claim(`t${i}`, 1_000, 21)).toBe("replayed");
    expect(cache.claim("u0", 1_000, 21)).toBe("replayed");
    // Expired ids are gone for good: each may be claimed again, up to the capacity.
    for (let i = 0; i < 549; i++) expect(cache.claim(`s${i}`, 1_000, 21)).toBe("claimed");
    expect(cache.size).toBe(700);
    expect(cache.claim("s549", 1_000, 21)).toBe("full");
  });

  it("rule: size counts only ids held unexpired: zero when new, and an id expiring exactly now is gone", () => {
    const cache = new ReplayCache(4);
    expect(cache.size).toBe(0);
    expect(cache.claim("a", 100, 50)).toBe("claimed");
    expect(cache.size).toBe(1);
    // "a" expires at 100: at now = 100 it is no longer held (a claim of it would succeed again).
    expect(cache.claim("b", 200, 100)).toBe("claimed");
    expect(cache.size).toBe(1);
    expect(cache.claim("a", 300, 100)).toBe("claimed");
    expect(cache.size).toBe(2);
  });

  it("rule: ids sharing the second half of their fingerprint are different ids", () => {
    // "m-6ogz" and "m-7ih4" have the same second 32-bit hash (so they also start probing at the same slot)
    // but different first hashes: found by search over the cache's hash; neither may look like a replay
    // of the other.
    const cache = new ReplayCache(4);
    expect(cache.claim("m-6ogz", 200, 100)).toBe("claimed");
    expect(cache.claim("m-7ih4", 200, 100)).toBe("claimed");
    expect(cache.size).toBe(2);
    expect(cache.claim("m-6ogz", 200, 101)).toBe("replayed");
    expect(cache.claim("m-7ih4", 200, 101)).toBe("replayed");
  });

  it("rule: ids sharing the first half of their fingerprint are different ids", () => {
    // "m-16cz" and "m-gwzf" have the same first 32-bit hash and start probing at the same slot of the
    // smallest table, but differ in the second hash.
    const cache = new ReplayCache(4);
    expect(cache.claim("m-16cz", 200, 100)).toBe("claimed");
    expect(cache.claim("m-gwzf", 200, 100)).toBe("claimed");
    expect(cache.size).toBe(2);
    expect(cache.claim("m-gwzf", 200, 101)).toBe("replayed");
  });

  it("rule: a clock before zero works like any other: empty slots are not ids, dropping expired ones frees room", () => {
    // Times are only compared, so a clock whose origin is later than the instants it reports is valid.
    const cache = new ReplayCache(2);
    expect(cache.claim("a", -50, -100)).toBe("claimed");
    expect(cache.claim("b", -40, -100)).toBe("claimed");
    expect(cache.claim("c", -30, -100)).toBe("full");
    // At -45 "a" has expired: the full cache drops it and takes "c"; "b" is still held.
    expect(cache.claim("c", -30, -45)).toBe("claimed");
    expect(cache.size).toBe(2);
    expect(cache.claim("b", -30, -44)).toBe("replayed");
    expect(cache.claim("d", -20, -44)).toBe("full");
  });
});
