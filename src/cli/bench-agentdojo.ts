import { accessSync, constants, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Option, type Command } from "commander";
import { benchAgentDojo } from "../benchmarks/agentdojo/bench-agentdojo.js";
import { writeFileAtomic } from "../state/atomic-file.js";
import { DEFAULTS } from "../core/config.js";
import { Guard } from "../guard.js";
import { exitWith } from "./exit.js";

interface BenchOptions {
  corpus: string;
  policy?: string;
  json?: string;
  format: "corpus" | "trace" | "recombine";
  injection: "goal" | "canary";
  argumentProvenance: boolean;
  atTrusted?: boolean;
  workspace?: string;
}

/**
 * Replay state (watermarks, approvals) is thrown away afterwards, and the guard makes every
 * escalation durable with fsync; on a memory-backed /dev/shm that costs nothing, on a disk it
 * dominates the run.
 */
function scratchRoot(): string {
  try {
    if (statSync("/dev/shm").isDirectory()) {
      accessSync("/dev/shm", constants.W_OK);
      return "/dev/shm";
    }
  } catch {
    // no /dev/shm here: use the ordinary temporary directory
  }
  return tmpdir();
}

export function registerBenchCommands(program: Command): void {
  const bench = program.command("bench").description("benchmarks that drive the real guard");
  bench
    .command("agentdojo")
    .description(
      "replay AgentDojo v1 (benign tasks and every user x injection pair, or recorded agent runs) through the guard; " +
        "exits 1 if any attacker side effect would run without the owner's approval",
    )
    .argument("[runs]", "with --format trace: the directory of recorded runs (<pipeline>/<suite>/<user_task>/<attack_type>/<injection_task or none>.json)")
    .requiredOption("--corpus <dir>", "the exported corpus (workspace.json, travel.json, banking.json, slack.json)")
    .option("--policy <file>", "tool policy (default: <corpus>/tool-policy.json)")
    .option("--json <out>", "write the totals and every replayed call to this file")
    .addOption(new Option("--format <format>", "what to replay").choices(["corpus", "trace", "recombine"]).default("corpus"))
    .addOption(new Option("--injection <text>", "what an injection vector holds in a corpus replay").choices(["goal", "canary"]).default("goal"))
    .option("--no-argument-provenance", "measure the plain high-water mark only (argumentProvenance: false)")
    .option("--at-trusted", "also check arguments of calls the taint policy allows at trusted taint (argumentProvenanceAtTrusted: true)")
    .option("--no-at-trusted", "do not (the product's default)")
    .option("--workspace <dir>", "where the guards keep their state during the run (default: a fresh directory under /dev/shm or the temporary directory, removed afterwards)")
    .action(async (runs: string | undefined, opts: BenchOptions) => {
      const workspaceDir = mkdtempSync(join(opts.workspace ?? scratchRoot(), "provenant-agentdojo-"));
      try {
        const result = await benchAgentDojo(
          {
            corpusDir: opts.corpus,
            ...(opts.policy === undefined ? {} : { policyFile: opts.policy }),
            format: opts.format,
            ...(runs === undefined ? {} : { runsDir: runs }),
            injectionText: opts.injection,
            setting: { argumentProvenance: opts.argumentProvenance, atTrusted: opts.atTrusted ?? DEFAULTS.argumentProvenanceAtTrusted },
          },
          // A fresh workspace per guard: watermarks persist per session, and runs must not share them.
          (config) => Guard.open({ config, workspaceDir: mkdtempSync(join(workspaceDir, "guard-")), turnGraphs: false }),
          () => performance.now(),
        );
        process.stdout.write(`${result.table}\n`);
        if (opts.json !== undefined) writeFileAtomic(opts.json, `${JSON.stringify(result.json, null, 1)}\n`);
        if (result.run.total.attacks.executedUnasked > 0) process.exitCode = 1;
        rmSync(workspaceDir, { recursive: true, force: true });
      } catch (error) {
        rmSync(workspaceDir, { recursive: true, force: true });
        exitWith("bench agentdojo", error);
      }
    });
}
