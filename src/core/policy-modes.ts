/** The three call-permission modes, from least to most strict. */
export const POLICY_MODES = ["allow", "confirm", "restrict"] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];

const STRICTNESS: Readonly<Record<PolicyMode, number>> = { allow: 0, confirm: 1, restrict: 2 };

export function modeStrictness(mode: PolicyMode): number {
  return STRICTNESS[mode];
}

export function strictestMode(a: PolicyMode, b: PolicyMode): PolicyMode {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

export function mostPermissiveMode(modes: readonly PolicyMode[]): PolicyMode | undefined {
  let best: PolicyMode | undefined;
  for (const mode of modes) if (best === undefined || STRICTNESS[mode] < STRICTNESS[best]) best = mode;
  return best;
}
