import type { TrustLevel } from "./trust-levels.js";

/** What a gate sees of one tool call. Pure data: gates decide, the guard acts. */
export interface GateCall {
  readonly sessionId: string;
  readonly turnId: string;
  readonly tool: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly taint: TrustLevel;
  /** null when the framework did not say who sent the turn. */
  readonly senderIsOwner: boolean | null;
  /** For a tool the host reads or writes a file with: every path the host may read its path arguments as. */
  readonly files?: GateFiles;
}

/**
 * Where a file tool's call lands, as the host reads what the model wrote (`@SOUL.md` is SOUL.md to
 * OpenClaw): the guard knows its host's tools and their rewriting; a gate only resolves the paths.
 */
export interface GateFiles {
  /** True for a tool that writes (or patches) the files. */
  readonly writes: boolean;
  readonly paths: readonly string[];
}

export interface GateVerdict {
  readonly verdict: "block" | "confirm";
  readonly rule: string;
  readonly reason: string;
}

/**
 * A check that runs before the taint policy (verification gate, mutation gate, intent scope).
 * Returning undefined passes the call to the next gate; the first verdict wins.
 */
export interface ToolGate {
  readonly name: string;
  check(call: GateCall): GateVerdict | undefined;
  /** Tools the model should not be shown right now (layer 1). */
  hiddenTools?(sessionId: string, tools: readonly string[]): ReadonlySet<string>;
}
