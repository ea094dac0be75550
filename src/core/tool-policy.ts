import type { ActionClass } from "./action-classes.js";
import { mcpServerWildcard } from "./mcp-tool-names.js";
import type { PolicyConfig, ToolOverride } from "./config.js";
import { strictestMode, type PolicyMode } from "./policy-modes.js";
import { hostCatalogue, type HostCatalogue } from "./host-catalogue.js";
import { UNKNOWN_TOOL_ACTION_CLASS, UNKNOWN_TOOL_OUTPUT_TAINT } from "./tool-catalogue.js";
import type { TrustLevel } from "./trust-levels.js";

export interface ModeDecision {
  readonly mode: PolicyMode;
  /** Which rule decided: names are stable, tests and the ledger rely on them. */
  readonly rule: "tool-override" | "safe-tool" | "dangerous-tool" | "owner-dm" | "unknown-tool" | "taint-policy";
  readonly reason: string;
}

const SAFE_OVERRIDE: ToolOverride = Object.freeze({ "*": "allow" });

/**
 * The tool catalogue merged with the owner's configuration, built once at start: the two
 * independent axes (what a tool's response does to taint, whether it may be called at a taint)
 * plus its action class. Lookups are hash-map reads.
 */
export class ToolPolicy {
  private readonly outputTaints: ReadonlyMap<string, TrustLevel>;
  private readonly actionClasses: ReadonlyMap<string, ActionClass>;
  private readonly overrides: ReadonlyMap<string, { override: ToolOverride; origin: "tool-override" | "safe-tool" | "dangerous-tool" }>;
  private readonly known: ReadonlySet<string>;

  constructor(
    readonly config: PolicyConfig,
    private readonly catalogue: HostCatalogue = hostCatalogue(),
  ) {
    this.outputTaints = new Map(Object.entries({ ...catalogue.outputTaints, ...config.toolOutputTaints }));
    this.actionClasses = new Map(Object.entries({ ...catalogue.actionClasses, ...config.toolActionClasses }));
    const overrides = new Map<string, { override: ToolOverride; origin: "tool-override" | "safe-tool" | "dangerous-tool" }>();
    for (const tool of catalogue.safeTools) overrides.set(tool, { override: SAFE_OVERRIDE, origin: "safe-tool" });
    for (const [tool, override] of Object.entries(catalogue.dangerousTools)) overrides.set(tool, { override, origin: "dangerous-tool" });
    // An owner's override replaces the built-in one for that tool, whole.
    for (const [tool, override] of Object.entries(config.toolOverrides)) overrides.set(tool, { override, origin: "tool-override" });
    this.overrides = overrides;
    this.known = new Set([
      ...catalogue.safeTools,
      ...catalogue.taintDefaultTools,
      ...Object.keys(catalogue.dangerousTools),
      ...Object.keys(config.toolOverrides),
      ...Object.keys(config.toolOutputTaints),
    ]);
  }

  /** A tool the catalogue or the owner has classified; anything else is treated as hostile. */
  isKnown(tool: string): boolean {
    return this.known.has(tool) || this.known.has(mcpServerWildcard(tool) ?? "");
  }

  outputTaint(tool: string): TrustLevel {
    return this.outputTaints.get(tool) ?? this.outputTaints.get(mcpServerWildcard(tool) ?? "") ?? UNKNOWN_TOOL_OUTPUT_TAINT;
  }

  actionClass(tool: string): ActionClass {
    return this.actionClasses.get(tool) ?? this.actionClasses.get(mcpServerWildcard(tool) ?? "") ?? UNKNOWN_TOOL_ACTION_CLASS;
  }

  /** The effective overrides (built-in and owner's), for the one log line at start. */
  ownerOverrides(): Readonly<Record<string, ToolOverride>> {
    return this.config.toolOverrides;
  }

  /**
   * The call permission for `tool` at `taint`. Order: an override for the tool (the owner's, or
   * a built-in safe/dangerous entry) replaces the taint default; a message to the owner's own DM
   * is always allowed unless the owner overrode `message`; an unknown tool gets the stricter of
   * the `untrusted` mode and the current one; everything else follows the taint policy.
   */
  modeFor(tool: string, taint: TrustLevel, context: { messageToOwner: boolean }): ModeDecision {
    const entry = this.overrides.get(tool) ?? this.overrides.get(mcpServerWildcard(tool) ?? "");
    if (entry !== undefined) {
      const mode = entry.override[taint] ?? entry.override["*"];
      if (mode !== undefined) {
        const reason =
          entry.origin === "safe-tool"
            ? `${tool} has no dangerous side effect and is allowed at any taint`
            : entry.origin === "dangerous-tool"
              ? `${tool} always needs the owner's approval`
              : `toolOverrides.${tool} sets ${mode} at ${taint}`;
        return { mode, rule: entry.origin, reason };
      }
    }
    if (tool === this.catalogue.messageTool && context.messageToOwner) {
      return { mode: "allow", rule: "owner-dm", reason: "a message to the owner's own DM is always allowed" };
    }
    const levelMode = this.config.taintPolicy[taint];
    if (!this.isKnown(tool)) {
      const mode = strictestMode(this.config.taintPolicy.untrusted, levelMode);
      return { mode, rule: "unknown-tool", reason: `${tool} is not a known tool; unknown tools get the untrusted policy (${mode})` };
    }
    return { mode: levelMode, rule: "taint-policy", reason: `taintPolicy.${taint} is ${levelMode}` };
  }
}
