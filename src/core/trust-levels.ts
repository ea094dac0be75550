/**
 * The four trust levels, ordered from most to least trusted. Taint only ever moves down this
 * list within a turn (the high-water mark), so every comparison goes through `trustRank`.
 */
export const TRUST_LEVELS = ["trusted", "shared", "external", "untrusted"] as const;
export type TrustLevel = (typeof TRUST_LEVELS)[number];

const RANK: Readonly<Record<TrustLevel, number>> = { trusted: 0, shared: 1, external: 2, untrusted: 3 };

export function isTrustLevel(value: unknown): value is TrustLevel {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(RANK, value);
}

/** 0 for `trusted` up to 3 for `untrusted`: a higher rank is more tainted. */
export function trustRank(level: TrustLevel): number {
  return RANK[level];
}

/** The less trusted of two levels: the high-water mark's one-way ratchet. */
export function minTrust(a: TrustLevel, b: TrustLevel): TrustLevel {
  return RANK[a] >= RANK[b] ? a : b;
}

/** True when `a` is strictly less trusted than `b`. */
export function lessTrusted(a: TrustLevel, b: TrustLevel): boolean {
  return RANK[a] > RANK[b];
}

export class TrustLevelError extends Error {
  constructor(readonly value: unknown, readonly where: string) {
    super(`${where}: ${JSON.stringify(value)} is not a trust level; expected one of ${TRUST_LEVELS.join(", ")}`);
    this.name = "TrustLevelError";
  }
}

export function parseTrustLevel(value: unknown, where = "trust level"): TrustLevel {
  if (isTrustLevel(value)) return value;
  throw new TrustLevelError(value, where);
}

export const TRUST_EMOJI: Readonly<Record<TrustLevel, string>> = {
  trusted: "🟢",
  shared: "🟡",
  external: "🟠",
  untrusted: "🔴",
};
