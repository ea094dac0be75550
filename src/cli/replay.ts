import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { consoleLogger, type Logger } from "../core/logger.js";
import { runReplay, type ReplayStep } from "../adapters/replay/replay-runner.js";
import { parseTrace, type NumberedEvent } from "../adapters/replay/trace-events.js";
import { Guard } from "../guard.js";
import { loadKeyFile } from "../auth/key-file.js";
import { displayJson } from "../core/safe-display.js";
import { exitWith } from "./exit.js";
import { readInputFile } from "./input-file.js";

export interface ReplayCommandOptions {
  readonly workspace?: string;
  /** Key file for checking turn envelopes (`provenant auth keygen`). */
  readonly authKey?: string;
  /** A fixed clock (ISO time), so that signed traces and code expiry replay the same every time. */
  readonly now?: string;
  readonly onStep?: (step: ReplayStep) => void;
  /** Where the guard's operational messages go; stderr by default. */
  readonly logger?: Logger;
  /** Append each ended turn's provenance graph to the workspace's turn-graphs.jsonl (the console draws them). */
  readonly graphs?: boolean;
}

/** Reads and runs a trace; returns the output lines. Errors propagate to the caller. */
export function replayFile(path: string, options: ReplayCommandOptions): string[] {
  // Graphs recorded into a directory removed at the end would be a silent no-op.
  if (options.graphs === true && options.workspace === undefined) {
    throw new Error("--graphs records into the workspace: give --workspace <dir> (without it the replay's state is a temporary directory, removed when the replay ends)");
  }
  const events = parseTrace(readInputFile(path));
  if (options.workspace !== undefined) return replayInto(options.workspace, events, options);
  const scratch = mkdtempSync(join(tmpdir(), "provenant-replay-"));
  try {
    return replayInto(scratch, events, options);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function replayInto(workspaceDir: string, events: readonly NumberedEvent[], options: ReplayCommandOptions): string[] {
  const logger = options.logger ?? consoleLogger();
  const authKeys = options.authKey === undefined ? undefined : loadKeyFile(options.authKey);
  const fixed = options.now === undefined ? undefined : parseInstant(options.now);
  const lines = runReplay(events, {
    openGuard: (config) =>
      Guard.open({
        config: authKeys && !config?.auth ? { ...config, auth: { mode: "enforce" } } : config,
        workspaceDir,
        logger,
        ...(authKeys ? { authKeys } : {}),
        ...(fixed !== undefined ? { now: () => fixed } : {}),
        turnGraphs: options.graphs === true,
      }),
    ...(options.onStep !== undefined ? { onStep: options.onStep } : {}),
  });
  // Valid JSON either way; C1 controls and bidi characters escaped so a terminal shows them.
  return lines.map((line) => displayJson(line));
}

export function registerReplayCommands(program: Command): void {
  program
    .command("replay")
    .description("drive the guard from a JSONL trace and print one JSON decision per tool call and response")
    .argument("<trace>", "trace file, one JSON event per line")
    .option("--workspace <dir>", "where state (watermarks, staged writes, ledger) goes; default: a temporary directory, removed when the replay ends")
    .option("--auth-key <file>", "check turn envelopes with this key file (auth.mode defaults to enforce)")
    .option("--now <iso-time>", "replay with the clock fixed at this instant")
    .option("--graphs", "append each turn's provenance graph to <workspace>/.provenance/turn-graphs.jsonl (shown by `provenant console`)")
    .action((trace: string, opts: { workspace?: string; authKey?: string; now?: string; graphs?: boolean }) => {
      try {
        for (const line of replayFile(trace, opts)) process.stdout.write(`${line}\n`);
      } catch (error) {
        exitWith("replay", error);
      }
    });
}

function parseInstant(text: string): number {
  const t = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(t)) throw new Error(`--now: ${JSON.stringify(text)} is not an ISO 8601 time such as 2026-01-01T00:00:00Z`);
  return t;
}
