import { describe, expect, it } from "vitest";
import { MIN_REPLAY_TTL_MS, ReplayCache } from "../../src/broker/replay-cache.js";

// The broker's replay cache at its edges: the exact instant an entry expires, eviction that frees
// room, the key being the MAC's bytes (not the buffer it sits in), and refused construction.
const mac = (n: number): Buffer => Buffer.alloc(32, n);
const TTL = 20_000;

describe("broker replay cache", () => {
  it("a request is a replay until the instant its entry expires, and fresh from then on", () => {
    const c = new ReplayCache(TTL, 10);
    expect(c.admit(mac(1), 0, 1_000)).toBe("fresh");
    expect(c.admit(mac(1), 0, 1_000 + TTL - 1)).toBe("replayed");
    expect(c.admit(mac(1), 0, 1_000 + TTL)).toBe("fresh");
  });

  it("keeps a TTL above the floor as given", () => {
    expect(new ReplayCache(TTL, 1).ttl).toBe(TTL);
    expect(new ReplayCache(MIN_REPLAY_TTL_MS - 1, 1).ttl).toBe(MIN_REPLAY_TTL_MS);
  });

  it("expired entries are evicted before the size check, so a full cache takes requests again once they expire", () => {
    const c = new ReplayCache(TTL, 2);
    expect(c.admit(mac(1), 0, 0)).toBe("fresh");
    expect(c.admit(mac(2), 0, 10)).toBe("fresh");
    expect(c.size).toBe(2);
    expect(c.admit(mac(3), 0, TTL - 1)).toBe("full");
    expect(c.size).toBe(2);
    // mac(1) has expired, mac(2) has not: one slot frees, the live entry stays a replay.
    expect(c.admit(mac(3), 0, TTL)).toBe("fresh");
    expect(c.size).toBe(2);
    expect(c.admit(mac(2), 0, TTL)).toBe("replayed");
    expect(c.admit(mac(1), 0, TTL + 9)).toBe("full");
  });

  it("eviction removes only expired entries, oldest first", () => {
    const c = new ReplayCache(TTL, 3);
    c.admit(mac(1), 0, 0);
    c.admit(mac(2), 0, 100);
    c.admit(mac(3), 0, 200);
    expect(c.admit(mac(4), 0, TTL + 100)).toBe("fresh");
    expect(c.size).toBe(2);
    expect(c.admit(mac(3), 0, TTL + 100)).toBe("replayed");
  });

  it("the key is the MAC's own bytes, wherever they sit in memory", () => {
    const c = new ReplayCache(TTL, 10);
    const backing = Buffer.concat([Buffer.alloc(7, 0xaa), mac(5), Buffer.alloc(9, 0xbb)]);
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 7, 32);
    expect(c.admit(view, 0, 0)).toBe("fresh");
    expect(c.admit(mac(5), 0, 1)).toBe("replayed");
    expect(c.admit(mac(6), 0, 1)).toBe("fresh");
  });

  it("the same MAC from two UIDs is two requests", () => {
    const c = new ReplayCache(TTL, 10);
    expect(c.admit(mac(1), 1000, 0)).toBe("fresh");
    expect(c.admit(mac(1), 1001, 0)).toBe("fresh");
    expect(c.admit(mac(1), 1000, 0)).toBe("replayed");
  });

  it("refuses a TTL that is not finite and a size that is not a positive integer", () => {
    expect(() => new ReplayCache(Number.NaN, 1)).toThrow(new RangeError("replay cache TTL must be finite"));
    expect(() => new ReplayCache(Number.POSITIVE_INFINITY, 1)).toThrow(RangeError);
    for (const size of [0, -1, 1.5, Number.NaN]) {
      expect(() => new ReplayCache(TTL, size)).toThrow(new RangeError("replay cache size must be a positive integer"));
    }
    expect(new ReplayCache(TTL, 1).size).toBe(0);
  });
});
