import { hash } from "node:crypto";

/** RFC 6962 section 2.1: domain separation keeps a leaf from ever being read as an inner node. */
const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

export const HASH_SIZE = 32;

/** MTH({}) = SHA-256 of the empty string. */
export const EMPTY_ROOT: Buffer = hash("sha256", "", "buffer");

// A digest asked for as a string and decoded is measurably faster in Node 20 than one asked for as
// a Buffer; raw bytes ("binary") decode faster than hex.
export function leafHash(input: Uint8Array): Buffer {
  return Buffer.from(hash("sha256", Buffer.concat([LEAF_PREFIX, input]), "binary"), "latin1");
}

/** Where nodeHash lays out 0x01 || left || right: the tree hashes one node per leaf on average. */
const NODE_INPUT = Buffer.alloc(1 + 2 * HASH_SIZE, 0x01);

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  if (left.length !== HASH_SIZE || right.length !== HASH_SIZE) {
    return Buffer.from(hash("sha256", Buffer.concat([NODE_PREFIX, left, right]), "binary"), "latin1");
  }
  NODE_INPUT.set(left, 1);
  NODE_INPUT.set(right, 1 + HASH_SIZE);
  return Buffer.from(hash("sha256", NODE_INPUT, "binary"), "latin1");
}

/** The largest power of two strictly less than n (n >= 2), the split point RFC 6962 prescribes. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The log's leaves are the chain entries' hashes: each already commits to seq, type, data and prevHash. */
export function entryLeafHash(entryHash: string): Buffer {
  // Laid out in place for a well-formed hash; anything else hashes what hex decoding makes of it, as before.
  if (entryHash.length === 2 * HASH_SIZE && LEAF_INPUT.write(entryHash, 1, "hex") === HASH_SIZE) {
    return Buffer.from(hash("sha256", LEAF_INPUT, "binary"), "latin1");
  }
  return Buffer.from(hash("sha256", Buffer.from(`00${entryHash}`, "hex"), "binary"), "latin1");
}

/** Where entryLeafHash lays out 0x00 || the entry hash's 32 bytes. */
const LEAF_INPUT = Buffer.alloc(1 + HASH_SIZE, 0x00);
