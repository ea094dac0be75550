/**
 * RFC-001's claim convention: `[G]` marks a grounded claim, `[I]` an inferred one. A grounded
 * claim must cite the verified tool result it rests on, `[G:12]` or `[G:12,14]` by seq; a `[G]`
 * citing nothing, or citing a result that never verified, is flagged.
 */
export interface ClaimTag {
  readonly kind: "G" | "I";
  readonly seqs: readonly number[];
  /** Offset of the tag in the text. */
  readonly index: number;
  readonly tag: string;
}

export interface FlaggedClaim extends ClaimTag {
  readonly problem: "uncited" | "unverified";
  /** For `unverified`: the cited seqs that are not verified results. */
  readonly missing: readonly number[];
}

export interface ClaimReport {
  readonly claims: readonly ClaimTag[];
  readonly flagged: readonly FlaggedClaim[];
}

const TAG = /\[(G|I)(?:\s*:\s*([0-9]{1,15}(?:\s*,\s*[0-9]{1,15})*))?\s*\]/g;

export function checkGroundedClaims(text: string, verifiedSeqs: ReadonlySet<number>): ClaimReport {
  const claims: ClaimTag[] = [];
  const flagged: FlaggedClaim[] = [];
  for (const m of text.matchAll(TAG)) {
    const kind = m[1] as "G" | "I";
    const seqs = m[2] === undefined ? [] : m[2].split(",").map((s) => Number(s.trim()));
    const claim: ClaimTag = { kind, seqs, index: m.index, tag: m[0] };
    claims.push(claim);
    if (kind !== "G") continue;
    if (seqs.length === 0) {
      flagged.push({ ...claim, problem: "uncited", missing: [] });
      continue;
    }
    const missing = seqs.filter((s) => !verifiedSeqs.has(s));
    if (missing.length > 0) flagged.push({ ...claim, problem: "unverified", missing });
  }
  return { claims, flagged };
}
