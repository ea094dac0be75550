/**
 * Proof generation at scale: inclusion and consistency proofs from a Merkle log of 1,000,000 entries
 * (target: under 1 ms each), against the same proof computed the naive way (root recomputation over
 * the leaves) at a smaller size, and the standalone verification of each proof. Same run.
 * Run: npx tsx bench/ledger-proof.ts [entries]
 */
import { entryLeafHash, nodeHash, splitPoint } from "../src/ledger/merkle-hash.js";
import { MerkleTree } from "../src/ledger/merkle-tree.js";
import { consistencyFailure, inclusionFailure } from "../src/ledger/merkle-verify.js";
import { chainHash } from "../src/ledger/chain-entry.js";
import { formatSeconds } from "./lib/timing.js";

const size = Number(process.argv[2] ?? 1_000_000);

function median(samples: number[]): number {
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
}

/** Time one call per sample over `count` pseudo-random arguments; seconds per call (median). */
function perCall(count: number, call: (k: number) => void): number {
  const samples: number[] = [];
  for (let k = 0; k < count; k++) {
    const start = process.hrtime.bigint();
    call(k);
    samples.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  return median(samples);
}

// Deterministic spread of indexes and sizes over the whole log.
const pick = (k: number, below: number): number => Math.floor(((k * 2654435761) % 4294967296) / 4294967296 * below);

const buildStart = process.hrtime.bigint();
const tree = new MerkleTree();
let prev = "0".repeat(64);
const leaves: Buffer[] = [];
for (let i = 0; i < size; i++) {
  prev = chainHash(prev, i, i === 0 ? "GENESIS" : "CLAIM", { i });
  const leaf = entryLeafHash(prev);
  tree.append(leaf);
  if (i < 65_536) leaves.push(leaf);
}
const buildSeconds = Number(process.hrtime.bigint() - buildStart) / 1e9;

function naiveRoot(from: number, to: number): Buffer {
  if (to - from === 1) return leaves[from] as Buffer;
  const k = splitPoint(to - from);
  return nodeHash(naiveRoot(from, from + k), naiveRoot(from + k, to));
}

const root = tree.root();
let checked = 0;
const inclusion = perCall(2_000, (k) => {
  const index = pick(k, size);
  tree.inclusionProof(index, size);
});
const inclusionOldSize = perCall(2_000, (k) => {
  const n = 1 + pick(k + 7, size);
  tree.inclusionProof(pick(k, n), n);
});
const consistency = perCall(2_000, (k) => {
  const n = 2 + pick(k + 3, size - 1);
  tree.consistencyProof(1 + pick(k, n - 1), n);
});
const verifyInclusion = perCall(2_000, (k) => {
  const index = pick(k, size);
  if (inclusionFailure(tree.leafHash(index), index, size, tree.inclusionProof(index, size), root) === undefined) checked++;
});
const verifyConsistency = perCall(2_000, (k) => {
  const m = 1 + pick(k, size - 1);
  if (consistencyFailure(m, size, tree.root(m), root, tree.consistencyProof(m, size)) === undefined) checked++;
});
// The naive way: recompute every subtree from the leaves, here at 65,536 entries.
const naiveSize = Math.min(65_536, size);
const naive = perCall(5, () => {
  naiveRoot(0, naiveSize);
});
if (checked !== 4_000) throw new Error(`only ${checked} of 4000 proofs verified`);

console.log(`\nMerkle log of ${size.toLocaleString("en-US")} entries (built in ${formatSeconds(buildSeconds)}, ${formatSeconds(buildSeconds / size)} per entry including the chain hash)`);
console.log("| case | median per call | target |");
console.log("| --- | ---: | ---: |");
console.log(`| inclusion proof, any entry, whole log | ${formatSeconds(inclusion)} | < 1 ms |`);
console.log(`| inclusion proof, any entry, any earlier size | ${formatSeconds(inclusionOldSize)} | < 1 ms |`);
console.log(`| consistency proof, any two sizes | ${formatSeconds(consistency)} | < 1 ms |`);
console.log(`| generate + verify inclusion (standalone verifier) | ${formatSeconds(verifyInclusion)} | |`);
console.log(`| root at an old size + generate + verify consistency | ${formatSeconds(verifyConsistency)} | |`);
console.log(`| baseline: naive root over ${naiveSize.toLocaleString("en-US")} leaves (one proof's worth of work, done the naive way) | ${formatSeconds(naive)} | |`);
console.log(`\ninclusion proof at ${size.toLocaleString("en-US")}: ${(naive / inclusion).toFixed(0)}x faster than one naive root over ${naiveSize.toLocaleString("en-US")} leaves`);
