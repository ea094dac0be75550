#!/usr/bin/env node
// A long fuzzing campaign: every property in test/fuzz/ with <n> inputs each (default 10,000),
// under vitest like the bounded CI run, and a total at the end. `npm run fuzz -- 125000` runs
// 1,000,000 inputs over the eight properties. FUZZ_SEED=<n> replays a seed fast-check printed.
import { spawnSync } from "node:child_process";

const runs = Number.parseInt(process.argv[2] ?? "10000", 10);
if (!Number.isSafeInteger(runs) || runs < 1) {
  console.error(`usage: npm run fuzz -- <inputs per property>; got ${JSON.stringify(process.argv[2])}`);
  process.exit(2);
}
const started = Date.now();
const r = spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "test/fuzz", "--reporter=verbose"], {
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, FUZZ_RUNS: String(runs) },
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
process.stdout.write(r.stdout ?? "");
const passed = Number(/Tests\s+(?:\S+\s+)*?(\d+) passed/.exec((r.stdout ?? "").replace(/\x1b\[[0-9;]*m/g, ""))?.[1] ?? 0);
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`\nfuzz campaign: ${passed} properties x ${runs.toLocaleString("en")} inputs = ${(passed * runs).toLocaleString("en")} inputs passed, ${minutes} min, exit ${r.status}`);
process.exit(r.status ?? 1);
