import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EMPTY_ROOT, entryLeafHash, leafHash, nodeHash, splitPoint } from "../../src/ledger/merkle-hash.js";
import { MerkleTree } from "../../src/ledger/merkle-tree.js";
import { consistencyFailure, inclusionFailure } from "../../src/ledger/merkle-verify.js";

interface RootsCorpus {
  leaf_inputs_hex: string[];
  root_hash_by_tree_size_hex: string[];
}
const corpus = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../../shared/corpora/merkle/rfc6962-roots.json"), "utf8"),
) as RootsCorpus;

/** RFC 6962 MTH written straight from the definition, to check the cached tree against. */
function referenceRoot(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0] as Buffer;
  const k = splitPoint(leaves.length);
  return nodeHash(referenceRoot(leaves.slice(0, k)), referenceRoot(leaves.slice(k)));
}

function treeOf(count: number): { tree: MerkleTree; leaves: Buffer[] } {
  const tree = new MerkleTree();
  const leaves: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const leaf = leafHash(Buffer.from(`entry ${i}`));
    leaves.push(leaf);
    tree.append(leaf);
  }
  return { tree, leaves };
}

function flipBit(bytes: Uint8Array, bit: number): Buffer {
  const copy = Buffer.from(bytes);
  const i = Math.floor(bit / 8) % copy.length;
  copy[i] = (copy[i] ?? 0) ^ (1 << bit % 8);
  return copy;
}

const MAX = 300;
const { tree, leaves } = treeOf(MAX);

describe("RFC 6962 tree hashing", () => {
  it("reproduces the transparency-dev roots for sizes 0..8", () => {
    const t = new MerkleTree();
    const roots = [t.root().toString("hex")];
    for (const hex of corpus.leaf_inputs_hex) {
      t.append(leafHash(Buffer.from(hex, "hex")));
      roots.push(t.root().toString("hex"));
    }
    expect(roots).toEqual(corpus.root_hash_by_tree_size_hex);
    // Every earlier size stays answerable from the same tree.
    corpus.root_hash_by_tree_size_hex.forEach((hex, size) => expect(t.root(size).toString("hex")).toBe(hex));
  });

  it("agrees with the recursive definition for every size up to 300", () => {
    for (let size = 0; size <= MAX; size++) {
      expect(tree.root(size).equals(referenceRoot(leaves.slice(0, size)))).toBe(true);
    }
  });

  it("refuses sizes and indexes outside the tree", () => {
    expect(() => tree.root(MAX + 1)).toThrow(RangeError);
    expect(() => tree.inclusionProof(5, 5)).toThrow("leaf index 5 must be below tree size 5");
    expect(() => tree.consistencyProof(10, 9)).toThrow(RangeError);
    expect(() => tree.inclusionProof(-1)).toThrow(RangeError);
  });
});

describe("inclusion proofs", () => {
  it("verify for every (index, size) pair up to 300", () => {
    for (let size = 1; size <= MAX; size++) {
      const root = tree.root(size);
      for (let index = 0; index < size; index++) {
        const proof = tree.inclusionProof(index, size);
        const failure = inclusionFailure(leaves[index] as Buffer, index, size, proof, root);
        if (failure !== undefined) expect.fail(`index ${index} size ${size}: ${failure}`);
      }
    }
  });

  it("break under any single-bit change of leaf, proof or root, or a wrong index or size", () => {
    const pair = fc
      .integer({ min: 2, max: MAX })
      .chain((size) => fc.tuple(fc.constant(size), fc.nat(size - 1), fc.nat(255), fc.nat(40)));
    fc.assert(
      fc.property(pair, ([size, index, bit, which]) => {
        const root = tree.root(size);
        const leaf = leaves[index] as Buffer;
        const proof = tree.inclusionProof(index, size);
        expect(inclusionFailure(flipBit(leaf, bit), index, size, proof, root)).toBeDefined();
        expect(inclusionFailure(leaf, index, size, proof, flipBit(root, bit))).toBeDefined();
        if (proof.length > 0) {
          const j = which % proof.length;
          const bent = proof.map((p, k) => (k === j ? flipBit(p, bit) : p));
          expect(inclusionFailure(leaf, index, size, bent, root)).toBeDefined();
          expect(inclusionFailure(leaf, index, size, proof.slice(1), root)).toBeDefined();
        }
        expect(inclusionFailure(leaf, (index + 1) % size, size, proof, root)).toBeDefined();
        if (size < MAX) expect(inclusionFailure(leaf, index, size + 1, proof, tree.root(size + 1))).toBeDefined();
      }),
      { numRuns: 3_000 },
    );
  });
});

describe("consistency proofs", () => {
  it("verify for every (older, newer) pair up to 300", () => {
    const roots = Array.from({ length: MAX + 1 }, (_, n) => tree.root(n));
    for (let newer = 0; newer <= MAX; newer++) {
      for (let older = 0; older <= newer; older++) {
        const proof = tree.consistencyProof(older, newer);
        const failure = consistencyFailure(older, newer, roots[older] as Buffer, roots[newer] as Buffer, proof);
        if (failure !== undefined) expect.fail(`${older} -> ${newer}: ${failure}`);
      }
    }
  });

  it("break under any single-bit change of either root or the proof", () => {
    const pair = fc
      .integer({ min: 2, max: MAX })
      .chain((newer) => fc.tuple(fc.integer({ min: 1, max: newer - 1 }), fc.constant(newer), fc.nat(255), fc.nat(40)));
    fc.assert(
      fc.property(pair, ([older, newer, bit, which]) => {
        const r1 = tree.root(older);
        const r2 = tree.root(newer);
        const proof = tree.consistencyProof(older, newer);
        expect(consistencyFailure(older, newer, flipBit(r1, bit), r2, proof)).toBeDefined();
        expect(consistencyFailure(older, newer, r1, flipBit(r2, bit), proof)).toBeDefined();
        const j = which % proof.length;
        expect(consistencyFailure(older, newer, r1, r2, proof.map((p, k) => (k === j ? flipBit(p, bit) : p)))).toBeDefined();
        expect(consistencyFailure(older, newer, r1, r2, proof.slice(0, -1))).toBeDefined();
      }),
      { numRuns: 3_000 },
    );
  });

  it("detects a forked history: same size prefix, one leaf rewritten", () => {
    const forked = new MerkleTree();
    leaves.forEach((leaf, i) => forked.append(i === 100 ? leafHash(Buffer.from("rewritten")) : leaf));
    const proof = forked.consistencyProof(150, MAX);
    expect(consistencyFailure(150, MAX, tree.root(150), forked.root(MAX), proof)).toBe(
      "consistency proof does not lead to the older root",
    );
  });

  it("rejects proofs for equal or empty sizes unless trivially consistent", () => {
    expect(consistencyFailure(0, 5, EMPTY_ROOT, tree.root(5), [])).toBeUndefined();
    expect(consistencyFailure(5, 5, tree.root(5), tree.root(5), [])).toBeUndefined();
    expect(consistencyFailure(5, 5, tree.root(5), tree.root(6), [])).toBe("roots differ for the same tree size");
    expect(consistencyFailure(6, 5, tree.root(6), tree.root(5), [])).toMatch(/older size 6/);
    // A proof where none is due is refused, not ignored.
    const junk = [tree.root(3)];
    expect(consistencyFailure(5, 5, tree.root(5), tree.root(5), junk)).toBe("consistency proof must be empty for these sizes");
    expect(consistencyFailure(0, 5, EMPTY_ROOT, tree.root(5), junk)).toBe("consistency proof must be empty for these sizes");
  });

  it("says which way each bad proof is wrong, and refuses sizes that are no counts", () => {
    const proof = tree.consistencyProof(150, MAX);
    expect(consistencyFailure(150, MAX, tree.root(150), tree.root(MAX), [])).toBe("consistency proof is empty");
    expect(consistencyFailure(150, MAX, tree.root(150), tree.root(MAX), [...proof, tree.root(1)])).toBe("consistency proof is longer than the trees allow");
    expect(consistencyFailure(150, MAX, tree.root(150), tree.root(MAX), proof.slice(0, -1))).toBe("consistency proof is shorter than the trees require");
    expect(consistencyFailure(150, MAX, tree.root(150), tree.root(MAX - 1), proof)).toBe("consistency proof does not lead to the newer root");
    // A power-of-two older size takes its root as the first node: an empty proof is still empty.
    expect(consistencyFailure(128, MAX, tree.root(128), tree.root(MAX), [])).toBe("consistency proof is empty");
    for (const [a, b] of [
      [-1, 5],
      [1.5, 5],
      [1, Number.NaN],
      [2 ** 53, 2 ** 53 + 2],
      [3, Number.POSITIVE_INFINITY],
    ] as const) {
      expect(consistencyFailure(a, b, tree.root(1), tree.root(5), proof)).toBe(`older size ${a} is not at most newer size ${b}`);
    }
    const inclusion = tree.inclusionProof(7, 30);
    const leaf = leaves[7] as Buffer;
    expect(inclusionFailure(leaf, 7, 30, [...inclusion, tree.root(1)], tree.root(30))).toBe("inclusion proof is longer than the tree allows");
    expect(inclusionFailure(leaf, 7, 30, inclusion.slice(0, -1), tree.root(30))).toBe("inclusion proof is shorter than the tree requires");
    expect(inclusionFailure(leaf, 7, 30, inclusion, tree.root(31))).toBe("inclusion proof does not lead to the root");
    for (const [index, size] of [
      [30, 30],
      [31, 30],
      [-1, 30],
      [0.5, 30],
      [0, Number.NaN],
      [0, 0],
    ] as const) {
      expect(inclusionFailure(leaf, index, size, inclusion, tree.root(30))).toBe(`leaf index ${index} is not below tree size ${size}`);
    }
    // The one-leaf tree: no proof, the leaf is the root.
    expect(inclusionFailure(leaves[0] as Buffer, 0, 1, [], tree.root(1))).toBeUndefined();
    expect(inclusionFailure(leaves[0] as Buffer, 0, 1, [leaves[1] as Buffer], tree.root(1))).toBe("inclusion proof is longer than the tree allows");
  });
});

describe("leaf and node hashing laid out in place", () => {
  const sha256 = (b: Uint8Array): Buffer => createHash("sha256").update(b).digest();

  it("hashes 0x00 || the entry hash for any string, well-formed or not, as the definition does", () => {
    fc.assert(
      fc.property(fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string(), fc.stringMatching(/^[0-9a-fA-FxZ]{60,68}$/)), (entryHash) => {
        expect(entryLeafHash(entryHash)).toEqual(sha256(Buffer.from(`00${entryHash}`, "hex")));
        // One call's layout leaves nothing behind for the next.
        expect(entryLeafHash("ab".repeat(32))).toEqual(sha256(Buffer.concat([Buffer.from([0]), Buffer.from("ab".repeat(32), "hex")])));
      }),
      { numRuns: 2_000 },
    );
  });

  it("hashes 0x01 || left || right for children of any length", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 }), (left, right) => {
        expect(nodeHash(left, right)).toEqual(sha256(Buffer.concat([Buffer.from([1]), left, right])));
      }),
      { numRuns: 2_000 },
    );
  });
});
