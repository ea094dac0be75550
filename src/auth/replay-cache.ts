/**
 * Message ids seen inside the freshness window. An id is remembered until its envelope would be
 * stale anyway, so memory is bounded by the window. When full, a new envelope is refused rather
 * than an old id forgotten: forgetting would reopen a replay window, refusing only delays a message.
 */
export class ReplayCache {
  // Map keeps insertion order, which is close to expiry order: sweeping from the front is cheap.
  private readonly expiries = new Map<string, number>();
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.expiries.size;
  }

  /**
   * Claims a message id for an envelope that just verified: `replayed` when the id is already
   * held inside the window, `full` when the cache is full of unexpired ids, else `claimed`.
   */
  claim(messageId: string, expiresAtSeconds: number, nowSeconds: number): "claimed" | "replayed" | "full" {
    const held = this.expiries.get(messageId);
    if (held !== undefined && held > nowSeconds) return "replayed";
    // A front sweep once per second keeps the common case cheap; the full sweep below runs before
    // anything is refused, so no expired id ever costs a message.
    if (nowSeconds !== this.sweptAt) {
      this.sweep(nowSeconds, false);
      this.sweptAt = nowSeconds;
    }
    if (held === undefined) {
      if (this.expiries.size >= this.capacity) {
        this.sweep(nowSeconds, true);
        if (this.expiries.size >= this.capacity) return "full";
      }
    } else {
      // An expired id the sweeps have not reached yet: re-inserting moves it to the back,
      // keeping the map in rough expiry order.
      this.expiries.delete(messageId);
    }
    this.expiries.set(messageId, expiresAtSeconds);
    return "claimed";
  }

  /** Drops expired ids from the front, or from everywhere when `full` (before refusing anything). */
  private sweep(nowSeconds: number, full: boolean): void {
    for (const [id, exp] of this.expiries) {
      if (exp > nowSeconds) {
        if (full) continue;
        break;
      }
      this.expiries.delete(id);
    }
  }
}
