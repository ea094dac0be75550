/**
 * What a `provenant` command costs before it does anything: one CLI process (spawn node, load the
 * command's modules, print its help, exit), for commands of each weight, against `node` printing
 * nothing, in the same run, interleaved. The CLI loads only the module of the command it is given
 * (src/cli/command-modules.ts); `--help` loads them all, which is what every command cost before.
 * Run: npm run build && npx tsx bench/cli-start.ts [rounds=15]
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { median, printTable } from "./lib/stats.js";

const ROUNDS = Number(process.argv[2] ?? 15);
const CLI = join(import.meta.dirname, "../dist/cli/main.js");
if (!existsSync(CLI)) throw new Error("dist/cli/main.js is missing: run npm run build first");

const runs: { readonly name: string; readonly args: readonly string[] }[] = [
  { name: "node -e 0 (baseline)", args: ["-e", "0"] },
  { name: "provenant --help (every module)", args: [CLI, "--help"] },
  { name: "provenant auth --help", args: [CLI, "auth", "--help"] },
  { name: "provenant ledger --help", args: [CLI, "ledger", "--help"] },
  { name: "provenant replay --help (the guard)", args: [CLI, "replay", "--help"] },
  { name: "provenant mcp --help (the guard, the MCP SDK)", args: [CLI, "mcp", "--help"] },
];

const millis = new Map(runs.map((run) => [run.name, [] as number[]]));
for (let round = 0; round < ROUNDS; round++) {
  for (const run of runs) {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, run.args, { stdio: ["ignore", "ignore", "inherit"] });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`${run.name} exited ${r.status}`);
    if (round > 0) millis.get(run.name)?.push(ms);
  }
}
const baseline = median(millis.get(runs[0]?.name ?? "") ?? []);
printTable(
  ["process", "p50 ms", "over node ms", "ratio"],
  runs.map((run) => {
    const p50 = median(millis.get(run.name) ?? []);
    return [run.name, p50.toFixed(0), (p50 - baseline).toFixed(0), (p50 / baseline).toFixed(2)];
  }),
);
