#!/usr/bin/env node
// A long fuzzing campaign: every property in test/fuzz/, under vitest like the bounded CI run,
// with <n> as the base count of inputs (cheap parsers run a multiple of it, the guard and the
// file-writing properties half; see fuzzParams in test/fuzz/fuzz-settings.ts), then the inputs
// each property actually ran and their total. `npm run fuzz -- 100000` runs about 1,050,000.
// FUZZ_SEED=<n> replays the seed fast-check printed for a failure.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const runs = Number.parseInt(process.argv[2] ?? "10000", 10);
if (!Number.isSafeInteger(runs) || runs < 1) {
  console.error(`usage: npm run fuzz -- <base inputs per property>; got ${JSON.stringify(process.argv[2])}`);
  process.exit(2);
}
// FUZZ_REPORT=<file> keeps the per-property counts where they can be watched during a long run.
const dir = mkdtempSync(join(tmpdir(), "provenant-fuzz-report-"));
const report = process.env.FUZZ_REPORT ?? join(dir, "report.tsv");
const started = Date.now();
const r = spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "test/fuzz"], {
  stdio: "inherit",
  env: { ...process.env, FUZZ_RUNS: String(runs), FUZZ_REPORT: report },
});
let rows = [];
try {
  rows = readFileSync(report, "utf8").trim().split("\n").filter(Boolean).map((l) => l.split("\t"));
} catch {
  // No property reported: the run failed before any finished.
}
rmSync(dir, { recursive: true, force: true });
let total = 0;
console.log("\n| property | inputs | result |\n| --- | ---: | --- |");
for (const [name, n, result] of rows) {
  total += Number(n);
  console.log(`| ${name} | ${Number(n).toLocaleString("en")} | ${result} |`);
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`\nfuzz campaign: ${rows.length} properties, ${total.toLocaleString("en")} inputs, ${rows.filter((x) => x[2] !== "passed").length} failed, ${minutes} min, exit ${r.status}`);
process.exit(r.status ?? 1);
