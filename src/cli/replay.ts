import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { consoleLogger } from "../core/logger.js";
import { runReplay, type ReplayStep } from "../adapters/replay/replay-runner.js";
import { parseTrace } from "../adapters/replay/trace-events.js";
import { Guard } from "../guard.js";
import { exitWith } from "./exit.js";

export interface ReplayCommandOptions {
  readonly workspace?: string;
  readonly onStep?: (step: ReplayStep) => void;
}

/** Reads and runs a trace; returns the output lines. Errors propagate to the caller. */
export function replayFile(path: string, options: ReplayCommandOptions): string[] {
  const events = parseTrace(readFileSync(path, "utf8"));
  const workspaceDir = options.workspace ?? mkdtempSync(join(tmpdir(), "provenant-replay-"));
  const logger = consoleLogger();
  const lines = runReplay(events, {
    openGuard: (config) => Guard.open({ config, workspaceDir, logger }),
    ...(options.onStep ? { onStep: options.onStep } : {}),
  });
  return lines.map((line) => JSON.stringify(line));
}

export function registerReplayCommands(program: Command): void {
  program
    .command("replay")
    .description("drive the guard from a JSONL trace and print one JSON decision per tool call and response")
    .argument("<trace>", "trace file, one JSON event per line")
    .option("--workspace <dir>", "where state (watermarks, staged writes, ledger) goes; default: a fresh temporary directory")
    .action((trace: string, opts: { workspace?: string }) => {
      try {
        for (const line of replayFile(trace, opts)) process.stdout.write(`${line}\n`);
      } catch (error) {
        exitWith("replay", error);
      }
    });
}
