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

  has(messageId: string, nowSeconds: number): boolean {
    const exp = this.expiries.get(messageId);
    return exp !== undefined && exp > nowSeconds;
  }

  /** Records an id; false when the cache is full of unexpired ids. */
  remember(messageId: string, expiresAtSeconds: number, nowSeconds: number): boolean {
    // Expiry has one-second resolution, so one sweep per second finds everything there is to find.
    if (nowSeconds !== this.sweptAt) {
      this.sweep(nowSeconds, false);
      this.sweptAt = nowSeconds;
    }
    if (this.expiries.size >= this.capacity) this.sweep(nowSeconds, true);
    if (this.expiries.size >= this.capacity && !this.expiries.has(messageId)) return false;
    this.expiries.set(messageId, expiresAtSeconds);
    return true;
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
