import { hash } from "node:crypto";
import { type EntryData, type EntryHeader, GENESIS_PREV_HASH, chainHashOfCanonical } from "./chain-entry.js";
import { type LineLayout, readLineAt } from "./line-layout.js";
import { wordView } from "./word-view.js";

const PIPE = 0x7c;
const HEX_LENGTH = 64;
/** Each byte value's two hex digits, as a big-endian 16-bit word. */
const HEX_PAIRS = Uint16Array.from({ length: 256 }, (_, x) => {
  const digits = "0123456789abcdef";
  return (digits.charCodeAt(x >> 4) << 8) | digits.charCodeAt(x & 15);
});

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
  /** Where acceptRun assembles prevHash|seq|type|data from the line's bytes, to hash them in one call. */
  private hashInput = Buffer.allocUnsafe(4096);
  private inputView = viewOf(this.hashInput);
  /** Views of the start of hashInput, by length. */
  private inputViews: Buffer[] = [];
  /** Whether hashInput starts with prevHash in hex, as acceptRun leaves it after each entry. */
  private inputHoldsPrevHash = false;
  /** Where the last line acceptRun accepted starts, in the bytes it was given. */
  lastLineStart = -1;

  /**
   * @param chain index of this chain in the chain of chains
   * @param continuesFrom the last hash of the previous chain, which this chain's genesis must carry;
   *   "unchecked" when the previous chain is not at hand (the caller vouches for the link elsewhere)
   */
  constructor(
    readonly chain: number,
    private readonly continuesFrom: string | undefined | "unchecked",
  ) {}

  /**
   * A verifier that starts inside a chain, at entry `seq` whose prevHash is `prevHash`, taken on trust.
   * What it accepts is a segment whose link to the rest of the chain is still to be checked (see
   * ChainSegment); it never accepts a genesis entry.
   */
  static midway(chain: number, seq: number, prevHash: string): ChainVerifier {
    const verifier = new ChainVerifier(chain, "unchecked");
    verifier.expectedSeq = seq;
    verifier.prevHash = prevHash;
    return verifier;
  }

  get count(): number {
    return this.expectedSeq;
  }

  /**
   * Takes `count` entries as accepted, the last with hash `lastHash`, when the next entry due is
   * `firstSeq` and its prevHash is `firstPrevHash`: for a verified segment that starts where this
   * verifier stands, that is exactly what accepting its lines one by one would do. False, and no
   * change, when the segment does not start here.
   */
  skip(firstSeq: number, firstPrevHash: string, count: number, lastHash: string): boolean {
    if (firstSeq !== this.expectedSeq || firstSeq === 0 || firstPrevHash !== this.prevHash || count < 1) return false;
    this.expectedSeq = firstSeq + count;
    this.prevHash = lastHash;
    this.inputHoldsPrevHash = false;
    return true;
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
    this.inputHoldsPrevHash = false;
    return undefined;
  }

  /**
   * The fast path: accepts lines one after another from `at`, each read in place by readLineAt, for
   * as long as each is the next entry after genesis and its prevHash and hash hold. It hashes the
   * line's own bytes, which for such a line are UTF-8 of prevHash|seq|type|canonicalJSON(data).
   * Stops before a line that starts at or after `limit`, before the entry with seq `stopSeq`, and at
   * the first line it does not vouch for, and returns where that line starts; it says nothing more
   * about it, and leaves the state as after the last accepted line, so the caller can hand that
   * line to accept for the precise verdict.
   */
  acceptRun(b: Buffer, at: number, limit: number, line: LineLayout, onEntry?: (hash: string) => void, stopSeq = -1): number {
    if (this.expectedSeq === 0) return at;
    const view = wordView(b);
    const source = b.buffer;
    const sourceOffset = b.byteOffset;
    let seq = this.expectedSeq;
    let lastHashAt = -1;
    let pos = at;
    while (pos < limit) {
      const newline = readLineAt(b, pos, line);
      if (newline < 0 || line.seq !== seq || seq === stopSeq || line.type === "GENESIS") break;
      const { seqAt, seqEnd, typeAt, typeEnd, dataStart, dataEnd } = line;
      const input = this.inputFor(HEX_LENGTH + 3 + (seqEnd - seqAt) + (typeEnd - typeAt) + (dataEnd - dataStart));
      const inputView = this.inputView;
      if (!sameHex(view, line.prevHashAt, inputView)) break;
      let o = HEX_LENGTH;
      input[o++] = PIPE;
      for (let i = seqAt; i < seqEnd; i++) input[o++] = b[i] as number;
      input[o++] = PIPE;
      for (let i = typeAt; i < typeEnd; i++) input[o++] = b[i] as number;
      input[o++] = PIPE;
      // A view and TypedArray.set copy twice as fast as Buffer.copy for lines this short.
      input.set(new Uint8Array(source, sourceOffset + dataStart, dataEnd - dataStart), o);
      // The digest, in hex, is compared with the stored hash two digits at a time and goes where the
      // next entry's input starts. Asked for as raw bytes and spelled out here, it costs less than
      // Node's hex.
      const digest = hash("sha256", input, "binary");
      const hashAt = line.hashAt;
      let same = true;
      for (let k = 0; k < 32; k++) {
        const pair = HEX_PAIRS[digest.charCodeAt(k)] as number;
        if (view.getUint16(hashAt + 2 * k) !== pair) {
          same = false;
          break;
        }
        inputView.setUint16(2 * k, pair);
      }
      if (!same) {
        this.inputHoldsPrevHash = false;
        break;
      }
      this.lastLineStart = pos;
      lastHashAt = hashAt;
      seq++;
      if (onEntry !== undefined) onEntry(input.toString("latin1", 0, HEX_LENGTH));
      pos = newline + 1;
    }
    if (seq !== this.expectedSeq) {
      this.expectedSeq = seq;
      // The last accepted line's stored hash, which equals the hash computed for it.
      this.prevHash = b.toString("latin1", lastHashAt, lastHashAt + HEX_LENGTH);
    }
    return pos;
  }

  /**
   * The first `length` bytes of hashInput, holding prevHash in hex. Views are kept by length: lines
   * of a ledger come in few lengths, and a fresh view per entry costs as much as a tenth of a hash.
   */
  private inputFor(length: number): Buffer {
    if (this.hashInput.length < length) {
      this.hashInput = Buffer.allocUnsafe(length * 2);
      this.inputView = viewOf(this.hashInput);
      this.inputViews = [];
      this.inputHoldsPrevHash = false;
    }
    if (!this.inputHoldsPrevHash) {
      this.hashInput.write(this.prevHash, 0, HEX_LENGTH, "latin1");
      this.inputHoldsPrevHash = true;
    }
    let input = this.inputViews[length];
    if (input === undefined) this.inputViews[length] = input = this.hashInput.subarray(0, length);
    return input;
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

function viewOf(b: Buffer): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** Whether the 64 bytes at `at` equal the first 64 of `input`, compared four at a time. */
function sameHex(view: DataView, at: number, input: DataView): boolean {
  for (let k = 0; k < HEX_LENGTH; k += 4) if (view.getUint32(at + k) !== input.getUint32(k)) return false;
  return true;
}
