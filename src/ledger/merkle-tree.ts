import { EMPTY_ROOT, HASH_SIZE, nodeHash, splitPoint } from "./merkle-hash.js";

/**
 * An append-only RFC 6962 Merkle tree that keeps every complete, aligned subtree hash, so a root,
 * an inclusion proof or a consistency proof for any size up to the current one costs O(log^2 n)
 * hash operations at most (O(log n) lookups when the sizes are powers of two), never a rescan.
 * Level l holds the hashes of the subtrees covering leaves [i * 2^l, (i + 1) * 2^l).
 */
export class MerkleTree {
  private readonly levels: Buffer[] = [];
  private readonly counts: number[] = [];
  private leaves = 0;

  get size(): number {
    return this.leaves;
  }

  append(leafHash: Uint8Array): void {
    let level = 0;
    let hashValue: Uint8Array = leafHash;
    for (;;) {
      const index = this.push(level, hashValue);
      if (index % 2 === 0) break;
      hashValue = nodeHash(this.stored(level, index - 1), hashValue);
      level++;
    }
    this.leaves++;
  }

  /** Appends leaf hashes laid end to end, 32 bytes each. */
  appendLeaves(leaves: Uint8Array): void {
    if (leaves.length % HASH_SIZE !== 0) throw new RangeError(`leaf hashes take ${HASH_SIZE} bytes each; got ${leaves.length} bytes`);
    for (let at = 0; at < leaves.length; at += HASH_SIZE) this.append(leaves.subarray(at, at + HASH_SIZE));
  }

  leafHash(index: number): Buffer {
    this.checkIndex(index, this.leaves);
    return this.stored(0, index);
  }

  root(size: number = this.leaves): Buffer {
    this.checkSize(size);
    return size === 0 ? EMPTY_ROOT : this.subtree(0, size);
  }

  /** RFC 6962 section 2.1.1 PATH(index, D[0:size]). */
  inclusionProof(index: number, size: number = this.leaves): Buffer[] {
    this.checkSize(size);
    this.checkIndex(index, size);
    const proof: Buffer[] = [];
    this.path(index, 0, size, proof);
    return proof;
  }

  /** RFC 6962 section 2.1.2 PROOF(older, D[0:newer]); empty when older is 0 or equals newer. */
  consistencyProof(older: number, newer: number = this.leaves): Buffer[] {
    this.checkSize(newer);
    if (!Number.isSafeInteger(older) || older < 0 || older > newer) {
      throw new RangeError(`older size ${older} must be between 0 and ${newer}`);
    }
    const proof: Buffer[] = [];
    if (older > 0 && older < newer) this.subproof(older, 0, newer, true, proof);
    return proof;
  }

  private path(index: number, start: number, end: number, proof: Buffer[]): void {
    const n = end - start;
    if (n === 1) return;
    const k = splitPoint(n);
    if (index < k) {
      this.path(index, start, start + k, proof);
      proof.push(this.subtree(start + k, end));
    } else {
      this.path(index - k, start + k, end, proof);
      proof.push(this.subtree(start, start + k));
    }
  }

  private subproof(m: number, start: number, end: number, whole: boolean, proof: Buffer[]): void {
    const n = end - start;
    if (m === n) {
      if (!whole) proof.push(this.subtree(start, end));
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      this.subproof(m, start, start + k, whole, proof);
      proof.push(this.subtree(start + k, end));
    } else {
      this.subproof(m - k, start + k, end, false, proof);
      proof.push(this.subtree(start, start + k));
    }
  }

  /** MTH(D[start:end]); RFC 6962's recursion only ever asks for aligned left subtrees. */
  private subtree(start: number, end: number): Buffer {
    const n = end - start;
    if ((n & (n - 1)) === 0 && start % n === 0) return this.stored(Math.log2(n), start / n);
    const k = splitPoint(n);
    return nodeHash(this.subtree(start, start + k), this.subtree(start + k, end));
  }

  private stored(level: number, index: number): Buffer {
    const buffer = this.levels[level];
    if (buffer === undefined) throw new Error(`merkle level ${level} missing`);
    return buffer.subarray(index * HASH_SIZE, (index + 1) * HASH_SIZE);
  }

  private push(level: number, hashValue: Uint8Array): number {
    let buffer = this.levels[level];
    const count = this.counts[level] ?? 0;
    if (buffer === undefined || (count + 1) * HASH_SIZE > buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(1024, count * 2) * HASH_SIZE);
      if (buffer !== undefined) buffer.copy(grown, 0, 0, count * HASH_SIZE);
      buffer = grown;
      this.levels[level] = buffer;
    }
    buffer.set(hashValue, count * HASH_SIZE);
    this.counts[level] = count + 1;
    return count;
  }

  private checkSize(size: number): void {
    if (!Number.isSafeInteger(size) || size < 0 || size > this.leaves) {
      throw new RangeError(`tree size ${size} must be between 0 and ${this.leaves}`);
    }
  }

  private checkIndex(index: number, size: number): void {
    if (!Number.isSafeInteger(index) || index < 0 || index >= size) {
      throw new RangeError(`leaf index ${index} must be below tree size ${size}`);
    }
  }
}
