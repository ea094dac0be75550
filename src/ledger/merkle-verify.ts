import { nodeHash } from "./merkle-hash.js";

/**
 * Standalone proof checks (RFC 9162 sections 2.1.3.2 and 2.1.4.2): they need only the proof, the
 * leaf hash and the roots, never the log. Each returns a reason when the proof fails, else undefined.
 */

export function inclusionFailure(
  leafHashValue: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): string | undefined {
  if (!isCount(index) || !isCount(size) || index >= size) return `leaf index ${index} is not below tree size ${size}`;
  let fn = index;
  let sn = size - 1;
  let r: Uint8Array = leafHashValue;
  for (const p of proof) {
    if (sn === 0) return "inclusion proof is longer than the tree allows";
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) return "inclusion proof is shorter than the tree requires";
  if (!sameHash(r, root)) return "inclusion proof does not lead to the root";
  return undefined;
}

export function consistencyFailure(
  olderSize: number,
  newerSize: number,
  olderRoot: Uint8Array,
  newerRoot: Uint8Array,
  proof: readonly Uint8Array[],
): string | undefined {
  if (!isCount(olderSize) || !isCount(newerSize) || olderSize > newerSize) {
    return `older size ${olderSize} is not at most newer size ${newerSize}`;
  }
  if (olderSize === 0 || olderSize === newerSize) {
    if (proof.length !== 0) return "consistency proof must be empty for these sizes";
    if (olderSize !== 0 && !sameHash(olderRoot, newerRoot)) return "roots differ for the same tree size";
    return undefined;
  }
  if (proof.length === 0) return "consistency proof is empty";
  const path: Uint8Array[] = isPowerOfTwo(olderSize) ? [olderRoot, ...proof] : [...proof];
  let fn = olderSize - 1;
  let sn = newerSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  const [first, ...rest] = path;
  if (first === undefined) return "consistency proof is empty";
  let fr: Uint8Array = first;
  let sr: Uint8Array = first;
  for (const c of rest) {
    if (sn === 0) return "consistency proof is longer than the trees allow";
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) return "consistency proof is shorter than the trees require";
  if (!sameHash(fr, olderRoot)) return "consistency proof does not lead to the older root";
  if (!sameHash(sr, newerRoot)) return "consistency proof does not lead to the newer root";
  return undefined;
}

function isCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && Number.isInteger(Math.log2(n));
}

function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}
