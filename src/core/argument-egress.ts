import type { ArgumentDecision } from "./argument-decision.js";
import { egressArguments, type ToolArgumentRoles } from "./argument-roles.js";
import type { ValueProvenance } from "./value-provenance.js";

/**
 * A read whose request leaves the machine (a URL fetched, a query sent to a search engine) is not
 * free of effect: what it carries out is the effect. Under taint it runs unasked only when each such
 * argument occurs verbatim in one source the session has seen (a link the owner gave, one a page or
 * message shows). A request composed from several pieces, or carrying data from the context
 * appended to a link (`?q=<the owner's code>`), occurs in no source, and asks. The attacker's own
 * link, copied whole, still runs: it carries nothing of the owner's out, and the benchmark counts it.
 * Returns null when the call has no egress argument or each one is verbatim.
 */
export function checkEgress(values: ValueProvenance, tool: string, params: Readonly<Record<string, unknown>>, roles: ToolArgumentRoles): ArgumentDecision | null {
  const lines: string[] = [];
  let composed = 0;
  for (const arg of egressArguments(roles, tool)) {
    const value = params[arg];
    const items = Array.isArray(value) ? (value as unknown[]) : [value];
    items.forEach((item, i) => {
      if (item === null || item === undefined) return;
      const text = typeof item === "string" || typeof item === "number" ? String(item) : JSON.stringify(item);
      const path = Array.isArray(value) ? `${arg}[${i}]` : arg;
      const verbatim = values.occursWhole(text);
      if (!verbatim) composed++;
      lines.push(`${verbatim ? "ok" : "ASK"} ${path} (egress) = ${JSON.stringify(text).slice(0, 120)}: ${verbatim ? "occurs verbatim in one source" : "occurs in no single source: composed, or carrying data out"}`);
    });
  }
  if (composed === 0) return null;
  return { runsUnasked: false, undetermined: [], reason: [`the request leaves the machine and ${composed === 1 ? "one argument" : `${composed} arguments`} of it occur${composed === 1 ? "s" : ""} in no single source`, ...lines].join("\n"), traces: [] };
}
