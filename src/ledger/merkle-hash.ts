import { hash } from "node:crypto";

/** RFC 6962 section 2.1: domain separation keeps a leaf from ever being read as an inner node. */
const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

export const HASH_SIZE = 32;

/** MTH({}) = SHA-256 of the empty string. */
export const EMPTY_ROOT: Buffer = hash("sha256", "", "buffer");

// Hex output then decoding is measurably faster in Node 20 than asking crypto.hash for a Buffer.
export function leafHash(input: Uint8Array): Buffer {
  return Buffer.from(hash("sha256", Buffer.concat([LEAF_PREFIX, input]), "hex"), "hex");
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return Buffer.from(hash("sha256", Buffer.concat([NODE_PREFIX, left, right]), "hex"), "hex");
}

/** The largest power of two strictly less than n (n >= 2), the split point RFC 6962 prescribes. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The log's leaves are the chain entries' hashes: each already commits to seq, type, data and prevHash. */
export function entryLeafHash(entryHash: string): Buffer {
  return Buffer.from(hash("sha256", Buffer.from(`00${entryHash}`, "hex"), "hex"), "hex");
}
