/**
 * Message ids seen inside the freshness window. An id is remembered until its envelope would be
 * stale anyway, so memory is bounded by the window. When full, a new envelope is refused rather
 * than an old id forgotten: forgetting would reopen a replay window, refusing only delays a message.
 *
 * Ids are held as 64-bit fingerprints in an open-addressing table of typed arrays, not as strings
 * in a Map: a lookup touches one or two slots instead of chasing pointers through a large Map and
 * its key strings, and no id string (nor the envelope it was cut from) is kept alive. Two ids with
 * the same fingerprint would make the second look replayed: a refusal, never an acceptance; with
 * random ids and a million held, a new id meets one about once in 10^13 claims. Only envelopes
 * whose MAC verified reach the cache, so its ids are chosen by key holders, never by an attacker.
 */
const MIN_SLOTS = 1024;

export class ReplayCache {
  private slots: number;
  private fp1: Int32Array;
  private fp2: Int32Array;
  private expiries: Float64Array;
  /** Entries in the table, expired ones not yet dropped included. */
  private stored = 0;
  /** No stored entry expires before this; nothing can be dropped until then. */
  private earliest = Number.POSITIVE_INFINITY;
  private lastNow = Number.NEGATIVE_INFINITY;
  private readonly maxSlots: number;

  constructor(private readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError("replay cache capacity must be a positive integer");
    // At most half full at capacity, so probes stay short.
    this.maxSlots = Math.max(MIN_SLOTS, nextPowerOfTwo(2 * capacity));
    this.slots = Math.min(MIN_SLOTS, this.maxSlots);
    this.fp1 = new Int32Array(this.slots);
    this.fp2 = new Int32Array(this.slots);
    this.expiries = new Float64Array(this.slots);
  }

  /** Ids held unexpired as of the latest claim (counts the table: for diagnostics and tests). */
  get size(): number {
    let n = 0;
    for (let i = 0; i < this.slots; i++) if (this.fp1[i] !== 0 && (this.expiries[i] as number) > this.lastNow) n++;
    return n;
  }

  /**
   * Claims a message id for an envelope that just verified: `replayed` when the id is already
   * held inside the window, `full` when the cache is full of unexpired ids, else `claimed`.
   */
  claim(messageId: string, expiresAtSeconds: number, nowSeconds: number): "claimed" | "replayed" | "full" {
    this.lastNow = nowSeconds;
    let a = 0x811c9dc5 ^ messageId.length;
    let b = 0x2545f491 ^ messageId.length;
    for (let i = 0; i < messageId.length; i++) {
      const c = messageId.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    a = mix(a) || 1;
    b = mix(b);
    const slot = this.find(a, b);
    if (this.fp1[slot] !== 0) {
      if ((this.expiries[slot] as number) > nowSeconds) return "replayed";
      // The same id, expired and not yet dropped: it starts a new window in place.
      this.expiries[slot] = expiresAtSeconds;
      this.earliest = Math.min(this.earliest, expiresAtSeconds);
      return "claimed";
    }
    if (this.stored >= this.capacity) {
      // Before refusing, drop whatever has expired; nothing has while now is before `earliest`.
      if (nowSeconds >= this.earliest) this.rebuild(nowSeconds);
      if (this.stored >= this.capacity) return "full";
    } else if (2 * (this.stored + 1) > this.slots) {
      this.rebuild(nowSeconds);
    }
    this.insert(a, b, expiresAtSeconds);
    return "claimed";
  }

  /** The slot holding fingerprint (a, b), or the empty slot where it would go. */
  private find(a: number, b: number): number {
    const mask = this.slots - 1;
    let i = b & mask;
    for (;;) {
      const f = this.fp1[i] as number;
      if (f === 0 || (f === a && this.fp2[i] === b)) return i;
      i = (i + 1) & mask;
    }
  }

  private insert(a: number, b: number, expiresAtSeconds: number): void {
    const i = this.find(a, b);
    this.fp1[i] = a;
    this.fp2[i] = b;
    this.expiries[i] = expiresAtSeconds;
    this.stored++;
    this.earliest = Math.min(this.earliest, expiresAtSeconds);
  }

  /** Re-lays the table without expired entries, sized for what is left plus room to grow. */
  private rebuild(nowSeconds: number): void {
    const { fp1, fp2, expiries, slots } = this;
    let live = 0;
    for (let i = 0; i < slots; i++) if (fp1[i] !== 0 && (expiries[i] as number) > nowSeconds) live++;
    this.slots = Math.min(this.maxSlots, Math.max(MIN_SLOTS, nextPowerOfTwo(4 * (live + 1))));
    this.fp1 = new Int32Array(this.slots);
    this.fp2 = new Int32Array(this.slots);
    this.expiries = new Float64Array(this.slots);
    this.stored = 0;
    this.earliest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < slots; i++) {
      const exp = expiries[i] as number;
      if (fp1[i] !== 0 && exp > nowSeconds) this.insert(fp1[i] as number, fp2[i] as number, exp);
    }
  }
}

/** MurmurHash3's finaliser: every input bit reaches every output bit. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}
