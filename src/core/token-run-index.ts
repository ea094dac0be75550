/** Positions are packed with the entry id into one number: id * 2^26 + position. */
const POSITION_BITS = 2 ** 26;

/** The most tokens one entry may hold; beyond it, an entry's tail is not indexed. */
const MAX_ENTRY_TOKENS = POSITION_BITS - 1;

/**
 * An inverted index from token to every place it occurs, for finding which entries contain a run
 * of tokens. A lookup anchors on the rarest token of the run, so its cost follows how often that
 * token occurs, not how much text is indexed. Entries are added with increasing ids; removal is
 * lazy, and the index compacts itself once removed tokens outnumber live ones.
 */
export class TokenRunIndex {
  private readonly occurrences = new Map<string, number[]>();
  private readonly entries = new Map<number, readonly string[]>();
  private liveTokens = 0;
  private deadTokens = 0;

  get size(): number {
    return this.liveTokens;
  }

  add(id: number, tokens: readonly string[]): void {
    if (!Number.isSafeInteger(id) || id < 0 || id >= Number.MAX_SAFE_INTEGER / POSITION_BITS) throw new RangeError(`entry id ${id} out of range`);
    if (this.entries.has(id)) throw new RangeError(`entry id ${id} already indexed`);
    const kept = tokens.length > MAX_ENTRY_TOKENS ? tokens.slice(0, MAX_ENTRY_TOKENS) : tokens;
    this.entries.set(id, kept);
    const base = id * POSITION_BITS;
    kept.forEach((token, pos) => {
      const list = this.occurrences.get(token);
      if (list === undefined) this.occurrences.set(token, [base + pos]);
      else list.push(base + pos);
    });
    this.liveTokens += kept.length;
  }

  remove(id: number): void {
    const tokens = this.entries.get(id);
    if (tokens === undefined) return;
    this.entries.delete(id);
    this.liveTokens -= tokens.length;
    this.deadTokens += tokens.length;
    if (this.deadTokens > this.liveTokens) this.compact();
  }

  /** Ids of the entries that contain `run` contiguously, ascending. */
  find(run: readonly string[]): number[] {
    if (run.length === 0) return [];
    let anchor = 0;
    let anchorList: readonly number[] | undefined;
    for (let j = 0; j < run.length; j++) {
      const list = this.occurrences.get(run[j] ?? "");
      if (list === undefined) return [];
      if (anchorList === undefined || list.length < anchorList.length) {
        anchorList = list;
        anchor = j;
      }
    }
    const found: number[] = [];
    for (const packed of anchorList ?? []) {
      const id = Math.floor(packed / POSITION_BITS);
      if (found.length > 0 && found[found.length - 1] === id) continue;
      const tokens = this.entries.get(id);
      if (tokens === undefined) continue;
      const start = (packed % POSITION_BITS) - anchor;
      if (start < 0 || start + run.length > tokens.length) continue;
      let same = true;
      for (let i = 0; i < run.length && same; i++) same = tokens[start + i] === run[i];
      if (same) found.push(id);
    }
    return found;
  }

  private compact(): void {
    for (const [token, list] of this.occurrences) {
      const live = list.filter((packed) => this.entries.has(Math.floor(packed / POSITION_BITS)));
      if (live.length === 0) this.occurrences.delete(token);
      else this.occurrences.set(token, live);
    }
    this.deadTokens = 0;
  }
}
