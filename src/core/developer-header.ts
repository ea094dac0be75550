import { TRUST_EMOJI, type TrustLevel } from "./trust-levels.js";

/** The taint header developer mode puts before every outbound message. Debugging only. */
export function developerHeader(taint: TrustLevel, reason: string, lastImpacted: string | null): string {
  return `${TRUST_EMOJI[taint]} [taint: ${taint} | reason: ${reason} | last impacted: ${lastImpacted ?? "none"}]`;
}
