import type { KeyObject } from "node:crypto";
import { z } from "zod";
import { CanonicalJSONError } from "./canonical-json.js";
import { type ChainEntry, ENTRY_TYPES, chainHash } from "./chain-entry.js";
import { openCheckpoint } from "./checkpoint.js";
import { entryLeafHash } from "./merkle-hash.js";
import { consistencyFailure, inclusionFailure } from "./merkle-verify.js";

/**
 * Proofs as self-contained JSON documents: everything a verifier needs is inside (the entry, the
 * roots, the sibling hashes, optionally the signed checkpoint vouching for a root), so checking one
 * needs no access to the ledger.
 */
export const PROOF_FORMAT = "provenant-ledger-proof/1";

const hex32 = z.string().regex(/^[0-9a-f]{64}$/, "expected 64 lowercase hex digits");
const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const entrySchema = z.strictObject({
  seq: count,
  type: z.enum(ENTRY_TYPES),
  data: z.record(z.string(), z.unknown()),
  prevHash: hex32,
  hash: hex32,
});

const inclusionSchema = z.strictObject({
  format: z.literal(PROOF_FORMAT),
  kind: z.literal("inclusion"),
  origin: z.string(),
  index: count,
  size: count,
  root: hex32,
  entry: entrySchema,
  proof: z.array(hex32).max(64),
  checkpoint: z.string().max(65_536).optional(),
});

const consistencySchema = z.strictObject({
  format: z.literal(PROOF_FORMAT),
  kind: z.literal("consistency"),
  origin: z.string(),
  size1: count,
  size2: count,
  root1: hex32,
  root2: hex32,
  proof: z.array(hex32).max(128),
  checkpoint1: z.string().max(65_536).optional(),
  checkpoint2: z.string().max(65_536).optional(),
});

export const proofDocumentSchema = z.discriminatedUnion("kind", [inclusionSchema, consistencySchema]);

export type InclusionProofDocument = z.infer<typeof inclusionSchema>;
export type ConsistencyProofDocument = z.infer<typeof consistencySchema>;
export type ProofDocument = z.infer<typeof proofDocumentSchema>;

export interface ProofTrust {
  /** Ed25519 public key and key name that embedded checkpoints must be signed with. */
  readonly publicKey: KeyObject;
  readonly keyName: string;
}

export type ProofCheck = { readonly ok: true; readonly summary: string } | { readonly ok: false; readonly reason: string };

/**
 * Checks a proof document (any JSON value). With `trust`, the document must embed at least one signed
 * checkpoint, and every embedded checkpoint must verify and vouch for the root it sits beside.
 */
export function checkProofDocument(input: unknown, trust?: ProofTrust): ProofCheck {
  const parsed = proofDocumentSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `not a proof document: ${issue === undefined ? "invalid" : `${issue.path.join(".") || "(root)"}: ${issue.message}`}` };
  }
  const doc = parsed.data;
  return doc.kind === "inclusion" ? checkInclusion(doc, trust) : checkConsistency(doc, trust);
}

function checkInclusion(doc: InclusionProofDocument, trust: ProofTrust | undefined): ProofCheck {
  const entry: ChainEntry = doc.entry;
  let recomputed: string;
  try {
    recomputed = chainHash(entry.prevHash, entry.seq, entry.type, entry.data);
  } catch (error) {
    if (error instanceof CanonicalJSONError) return { ok: false, reason: `entry data: ${error.message}` };
    throw error;
  }
  if (recomputed !== entry.hash) return { ok: false, reason: "entry hash does not match its seq, type and data" };
  const failure = inclusionFailure(entryLeafHash(entry.hash), doc.index, doc.size, doc.proof.map(bytes), bytes(doc.root));
  if (failure !== undefined) return { ok: false, reason: failure };
  if (trust !== undefined && doc.checkpoint === undefined) return { ok: false, reason: NO_CHECKPOINT };
  const signed = vouch(doc.checkpoint, doc.origin, doc.size, doc.root, trust);
  if (signed !== undefined) return { ok: false, reason: signed };
  return { ok: true, summary: `entry ${doc.index} (seq ${entry.seq}, ${entry.type}) is in the log of size ${doc.size} with root ${doc.root}` };
}

function checkConsistency(doc: ConsistencyProofDocument, trust: ProofTrust | undefined): ProofCheck {
  const failure = consistencyFailure(doc.size1, doc.size2, bytes(doc.root1), bytes(doc.root2), doc.proof.map(bytes));
  if (failure !== undefined) return { ok: false, reason: failure };
  if (trust !== undefined && doc.checkpoint1 === undefined && doc.checkpoint2 === undefined) {
    return { ok: false, reason: NO_CHECKPOINT };
  }
  const first = vouch(doc.checkpoint1, doc.origin, doc.size1, doc.root1, trust);
  if (first !== undefined) return { ok: false, reason: `older checkpoint: ${first}` };
  const second = vouch(doc.checkpoint2, doc.origin, doc.size2, doc.root2, trust);
  if (second !== undefined) return { ok: false, reason: `newer checkpoint: ${second}` };
  return { ok: true, summary: `the log of size ${doc.size2} (root ${doc.root2}) extends the log of size ${doc.size1} (root ${doc.root1})` };
}

const NO_CHECKPOINT = "no signed checkpoint in the proof to check a root against";

/** A reason an embedded checkpoint fails to vouch for (origin, size, root), or undefined. */
function vouch(note: string | undefined, origin: string, size: number, root: string, trust: ProofTrust | undefined): string | undefined {
  if (trust === undefined || note === undefined) return undefined;
  let checkpoint;
  try {
    checkpoint = openCheckpoint(note, trust.keyName, trust.publicKey);
  } catch (error) {
    return (error as Error).message;
  }
  if (checkpoint.origin !== origin) return `checkpoint origin ${checkpoint.origin} is not ${origin}`;
  if (checkpoint.size !== size || checkpoint.root.toString("hex") !== root) return "checkpoint does not vouch for this size and root";
  return undefined;
}

function bytes(hex: string): Buffer {
  return Buffer.from(hex, "hex");
}
