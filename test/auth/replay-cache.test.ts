import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ReplayCache } from "../../src/auth/replay-cache.js";

/** The specification, spelled as directly as possible: a Map of id → expiry, counted on each claim. */
class ReferenceCache {
  private readonly held = new Map<string, number>();
  constructor(private readonly capacity: number) {}
  claim(id: string, expires: number, now: number): "claimed" | "replayed" | "full" {
    const h = this.held.get(id);
    if (h !== undefined && h > now) return "replayed";
    let live = 0;
    for (const [other, exp] of this.held) if (other !== id && exp > now) live++;
    if (live >= this.capacity) return "full";
    this.held.set(id, expires);
    return "claimed";
  }
}

describe("replay cache", () => {
  it("answers every claim as the reference does (ids, clock, windows and capacity at random)", () => {
    const step = fc.record({ id: fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "m-0001", "m-0002"), dt: fc.nat(3), window: fc.integer({ min: 1, max: 6 }) });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(step, { maxLength: 80 }), (capacity, steps) => {
        const cache = new ReplayCache(capacity);
        const ref = new ReferenceCache(capacity);
        let now = 1_767_225_600;
        for (const s of steps) {
          now += s.dt;
          expect(cache.claim(s.id, now + s.window, now)).toBe(ref.claim(s.id, now + s.window, now));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("holds a quarter of a million distinct ids through growth, refuses each again, then forgets them after the window", () => {
    const n = 250_000;
    const cache = new ReplayCache(n);
    const id = (i: number) => `m${i.toString(36)}`.padEnd(16, "_");
    for (let i = 0; i < n; i++) expect(cache.claim(id(i), 1000, 0)).toBe("claimed");
    expect(cache.size).toBe(n);
    expect(cache.claim("one-too-many", 1000, 0)).toBe("full");
    for (let i = 0; i < n; i += 7) expect(cache.claim(id(i), 1000, 1)).toBe("replayed");
    // All expired at 1000: room again, and the old ids are claimable (their envelopes are stale anyway).
    expect(cache.claim("one-too-many", 2000, 1000)).toBe("claimed");
    expect(cache.claim(id(3), 2000, 1000)).toBe("claimed");
    expect(cache.size).toBe(2);
  });

  it("at capacity, an id whose window has passed makes room without anything unexpired being forgotten", () => {
    const cache = new ReplayCache(3);
    expect(cache.claim("a", 10, 0)).toBe("claimed");
    expect(cache.claim("b", 20, 0)).toBe("claimed");
    expect(cache.claim("c", 20, 0)).toBe("claimed");
    expect(cache.claim("d", 20, 5)).toBe("full");
    expect(cache.claim("d", 30, 10)).toBe("claimed");
    expect(cache.claim("b", 30, 10)).toBe("replayed");
    expect(cache.claim("c", 30, 19)).toBe("replayed");
  });

  it("refuses a capacity it cannot honour", () => {
    expect(() => new ReplayCache(0)).toThrow(RangeError);
    expect(() => new ReplayCache(1.5)).toThrow(RangeError);
  });
});
