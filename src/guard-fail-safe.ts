import type { Decision } from "./core/decision.js";
import { hasSideEffect } from "./core/action-classes.js";
import { displayText } from "./core/safe-display.js";
import { hostCatalogue, type HostCatalogue } from "./core/host-catalogue.js";

export type FailMode = "open" | "closed";

/** How much of an internal error a decision names: enough to act on, never a whole stack or payload. */
const ERROR_SUMMARY_MAX = 300;

/** `Name: message`, display-safe and clipped, for reasons the owner and the model read. */
export function describeFailure(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const clipped = text.length > ERROR_SUMMARY_MAX ? `${text.slice(0, ERROR_SUMMARY_MAX)}…` : text;
  return displayText(clipped);
}

/**
 * Read-only by the built-in catalogue alone: the owner's configuration may be what failed, and
 * a tool the catalogue does not know is assumed to have side effects.
 */
export function isCatalogueReadOnly(tool: string, catalogue: HostCatalogue = hostCatalogue()): boolean {
  if (!Object.hasOwn(catalogue.actionClasses, tool)) return false;
  const action = catalogue.actionClasses[tool];
  return action !== undefined && !hasSideEffect(action);
}

/**
 * The decision when the guard could not decide a call. It never allows a side effect:
 * `"closed"` blocks everything; `"open"` lets a read-only tool run (an agent that cannot even
 * read is the outage the seed's fail-open avoids) and asks the owner for anything else. `code` is
 * the approval code when one could be issued; without one the host's own approval prompt (or,
 * where there is none, a block) is what asks. `call`, the call as the owner is shown it
 * (`heldCall(...).shown`), leads the reason where it could be read, as in every held call's: an
 * owner asked to approve sees what would run.
 */
export function failSafeDecision(
  failMode: FailMode,
  tool: string,
  error: unknown,
  code?: { readonly code: string; readonly expiresInSeconds: number },
  catalogue: HostCatalogue = hostCatalogue(),
  call?: string,
): Decision {
  const failure = describeFailure(error);
  const shown = displayText(tool);
  const base = { tool, taint: "untrusted" as const, provenance: null };
  const callLine = call === undefined ? "" : `Call: ${call}\n`;
  if (failMode === "closed") {
    return { ...base, verdict: "block", rule: "fail-closed", reason: `${callLine}provenant could not decide this ${shown} call (${failure}); failMode is closed, so it is blocked.` };
  }
  if (isCatalogueReadOnly(tool, catalogue)) {
    return { ...base, verdict: "allow", rule: "fail-open", reason: `provenant could not decide this ${shown} call (${failure}); it only reads, so it runs (failMode open).` };
  }
  const ask = `${callLine}provenant could not decide this ${shown} call (${failure}); it has side effects, so the owner must approve it (failMode open).`;
  if (code === undefined) return { ...base, verdict: "confirm", rule: "fail-open", reason: ask };
  return {
    ...base,
    verdict: "confirm",
    rule: "fail-open",
    code: code.code,
    reason:
      `${ask}\n` +
      `Approval code: ${code.code} (expires in ${code.expiresInSeconds}s)\n` +
      `Approve:  .approve ${shown} ${code.code} [minutes]`,
  };
}
