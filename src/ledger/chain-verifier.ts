import { type EntryData, type EntryHeader, GENESIS_PREV_HASH, chainHashOfCanonical } from "./chain-entry.js";

/** Where a chain first stops being trustworthy, and why. */
export interface ChainFault {
  /** Index of the chain in the chain of chains (0 for the first). */
  readonly chain: number;
  /** The seq at which the chain is corrupt: the entry found there, or the one expected there. */
  readonly seq: number;
  readonly reason: string;
}

/**
 * Recomputes one chain entry by entry, as RFC-001 prescribes: seq from 0 without gaps, each prevHash
 * the previous hash, each hash recomputed from the canonical data. Pure; callers feed it entries.
 */
export class ChainVerifier {
  private expectedSeq = 0;
  private prevHash = GENESIS_PREV_HASH;

  /**
   * @param chain index of this chain in the chain of chains
   * @param continuesFrom the last hash of the previous chain, which this chain's genesis must carry;
   *   "unchecked" when the previous chain is not at hand (the caller vouches for the link elsewhere)
   */
  constructor(
    readonly chain: number,
    private readonly continuesFrom: string | undefined | "unchecked",
  ) {}

  get count(): number {
    return this.expectedSeq;
  }

  /** The hash of the last accepted entry (the zero hash before genesis). */
  get lastHash(): string {
    return this.prevHash;
  }

  /** A fault for an entry that could not be read at all: it sits where the next seq was due. */
  unreadable(reason: string): ChainFault {
    return this.fault(this.expectedSeq, reason);
  }

  /**
   * Checks the next entry from its header and canonicalJSON(data), as the reader has them; the data
   * itself is only parsed for a genesis entry, whose fields link the chain of chains.
   */
  accept(entry: EntryHeader, canonicalData: string): ChainFault | undefined {
    const seq = this.expectedSeq;
    if (entry.seq !== seq) {
      const kind = entry.seq > seq ? "gap" : "duplicate or reordered entry";
      return this.fault(seq, `expected seq=${seq}, found seq=${entry.seq} (${kind})`);
    }
    if ((entry.type === "GENESIS") !== (seq === 0)) {
      return this.fault(seq, seq === 0 ? "chain does not open with GENESIS" : "GENESIS entry inside a chain");
    }
    if (entry.prevHash !== this.prevHash) {
      return this.fault(
        seq,
        seq === 0 ? "genesis prevHash is not 32 zero bytes" : `prevHash does not match the hash of seq ${seq - 1}`,
      );
    }
    if (seq === 0) {
      const fault = this.checkGenesis(JSON.parse(canonicalData) as EntryData);
      if (fault !== undefined) return fault;
    }
    const computed = chainHashOfCanonical(entry.prevHash, entry.seq, entry.type, canonicalData);
    if (computed !== entry.hash) {
      return this.fault(seq, `hash mismatch: stored ${entry.hash}, recomputed ${computed} (seq, type or data altered)`);
    }
    this.expectedSeq = seq + 1;
    this.prevHash = entry.hash;
    return undefined;
  }

  private checkGenesis(data: EntryData): ChainFault | undefined {
    const { continues_from: from, chain } = data;
    if (this.continuesFrom === "unchecked") {
      // The link to the previous chain is checked by whoever walks the chain of chains.
    } else if (this.continuesFrom === undefined) {
      if (from !== undefined) return this.fault(0, "first chain's genesis claims to continue another chain");
    } else if (from !== this.continuesFrom) {
      return this.fault(0, `genesis continues_from does not match the last hash of chain ${this.chain - 1}`);
    }
    if (chain !== undefined && chain !== this.chain) {
      return this.fault(0, `genesis says chain ${String(chain)}, found as chain ${this.chain}`);
    }
    return undefined;
  }

  private fault(seq: number, reason: string): ChainFault {
    return { chain: this.chain, seq, reason };
  }
}
