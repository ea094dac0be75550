import type { Checkpoint } from "./checkpoint.js";
import { LEDGER_DEFAULTS } from "./file-ledger.js";
import type { LogScan } from "./ledger-log.js";
import { consistencyFailure } from "./merkle-verify.js";
import type { MerkleTree } from "./merkle-tree.js";
import { type ConsistencyProofDocument, type InclusionProofDocument, PROOF_FORMAT } from "./proof-document.js";

/** The log's name: its first genesis entry's origin. */
export function logOrigin(scan: LogScan): string {
  const origin = scan.chains[0]?.genesis?.origin;
  return typeof origin === "string" && origin !== "" ? origin : LEDGER_DEFAULTS.origin;
}

export function currentCheckpoint(scan: LogScan): Checkpoint {
  const tree = requireTree(scan);
  return { origin: logOrigin(scan), size: tree.size, root: tree.root() };
}

/** Needs a scan made with `{ tree: true, entryAt: index }`. */
export function inclusionProofDocument(scan: LogScan, index: number, size: number, checkpoint?: string): InclusionProofDocument {
  const tree = requireTree(scan);
  const found = scan.found;
  if (found?.index !== index) throw new RangeError(`the log has no entry at index ${index} (it holds ${tree.size})`);
  if (size <= index || size > tree.size) throw new RangeError(`tree size ${size} must be above ${index} and at most ${tree.size}`);
  const proof = tree.inclusionProof(found.index, size);
  return {
    format: PROOF_FORMAT,
    kind: "inclusion",
    origin: logOrigin(scan),
    index: found.index,
    size,
    root: tree.root(size).toString("hex"),
    entry: { ...found.entry, data: { ...found.entry.data } },
    proof: proof.map((p) => p.toString("hex")),
    ...(checkpoint === undefined ? {} : { checkpoint }),
  };
}

export function consistencyProofDocument(scan: LogScan, size1: number, size2: number): ConsistencyProofDocument {
  const tree = requireTree(scan);
  if (size2 > tree.size) throw new RangeError(`the log holds ${tree.size} entries, fewer than ${size2}`);
  return {
    format: PROOF_FORMAT,
    kind: "consistency",
    origin: logOrigin(scan),
    size1,
    size2,
    root1: tree.root(size1).toString("hex"),
    root2: tree.root(size2).toString("hex"),
    proof: tree.consistencyProof(size1, size2).map((p) => p.toString("hex")),
  };
}

/**
 * Whether the ledger as it is now still contains the history a trusted checkpoint vouched for: a
 * shorter log was truncated; a log whose prefix has another root was rewritten (a fork). The check
 * is made the way a remote verifier would, through a consistency proof from the checkpoint.
 */
export function checkpointViolation(scan: LogScan, checkpoint: Checkpoint): string | undefined {
  const tree = requireTree(scan);
  if (checkpoint.origin !== logOrigin(scan)) return `checkpoint is for log ${checkpoint.origin}, this ledger is ${logOrigin(scan)}`;
  if (tree.size < checkpoint.size) {
    return `truncated: the checkpoint covers ${checkpoint.size} entries, the ledger now holds ${tree.size}`;
  }
  const failure = consistencyFailure(checkpoint.size, tree.size, checkpoint.root, tree.root(), tree.consistencyProof(checkpoint.size));
  if (failure === undefined) return undefined;
  const atSize = tree.root(checkpoint.size).equals(checkpoint.root) ? "" : `; its first ${checkpoint.size} entries now hash to ${tree.root(checkpoint.size).toString("hex")}`;
  return `history rewritten since the checkpoint (${failure})${atSize}`;
}

function requireTree(scan: LogScan): MerkleTree {
  if (scan.tree === undefined) throw new Error("scanLog was not asked to build the tree");
  return scan.tree;
}
