/**
 * Remembers authenticated requests for a while so none can be accepted twice. The key is the decoded
 * MAC bytes with the peer UID: keying on the MAC's text would let a second spelling of the same bytes
 * (the reference's decoder skips CR/LF) through. Entries live at least MIN_TTL_MS, the whole time a
 * request stays fresh: the ±5 s window is checked on the daemon's clock in whole seconds, so a request
 * stamped T is accepted from (T-5).000 until (T+5).999, 11 s in all, and a request cannot outlive its
 * own entry. When the cache is full of live entries it refuses new requests rather than forget one
 * that could still be replayed.
 */
export const MIN_REPLAY_TTL_MS = 11_000;

export type ReplayVerdict = "fresh" | "replayed" | "full";

export class ReplayCache {
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  // Insertion order equals expiry order because the TTL is fixed: the oldest entries are first.
  private readonly expiries = new Map<string, number>();

  constructor(ttlMs: number, maxEntries: number) {
    if (!Number.isFinite(ttlMs)) throw new RangeError("replay cache TTL must be finite");
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError("replay cache size must be a positive integer");
    this.ttlMs = Math.max(ttlMs, MIN_REPLAY_TTL_MS);
    this.maxEntries = maxEntries;
  }

  get ttl(): number {
    return this.ttlMs;
  }

  get size(): number {
    return this.expiries.size;
  }

  /** Records the request if it is new; `now` is injected so the cache has no clock of its own. */
  admit(mac: Uint8Array, uid: number, now: number): ReplayVerdict {
    this.evictExpired(now);
    const key = `${uid}:${Buffer.from(mac.buffer, mac.byteOffset, mac.byteLength).toString("hex")}`;
    if (this.expiries.has(key)) return "replayed";
    if (this.expiries.size >= this.maxEntries) return "full";
    this.expiries.set(key, now + this.ttlMs);
    return "fresh";
  }

  private evictExpired(now: number): void {
    for (const [key, expiry] of this.expiries) {
      if (expiry > now) break;
      this.expiries.delete(key);
    }
  }
}
