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
  /** For a tool that runs a shell command: where the command may touch files by name. */
  readonly command?: GateCommand;
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

/**
 * What a shell command's words say of the files it touches (core/command-files.ts). A reading of
 * words, not of what the programs do: a script that builds a name at run time names nothing here.
 */
export interface GateCommand {
  /** The files it writes by name: redirections, `tee`, a copy's destination, `dd of=`. */
  readonly written: readonly GateCommandPath[];
  /** Every word that may be a path (options' values too); null when there are too many to read one by one. */
  readonly named: readonly GateCommandPath[] | null;
  /** Whether it runs a program that may change files its words name (`sed -i`, `rm`, `git`, a script): any but known read-only ones. */
  readonly mayChangeNamed: boolean;
}

/** A path as the command wrote it, and every path it may land on (in each directory the command may be in). */
export interface GateCommandPath {
  readonly raw: string;
  readonly readings: readonly string[];
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
