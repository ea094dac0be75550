#!/usr/bin/env node
// Runs every bench/*.ts (or the ones named) one after another, each in its own Node process, so
// one bench's garbage and JIT state do not colour the next. Each prints its own table.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

const wanted = process.argv.slice(2);
const benches = readdirSync("bench")
  .filter((f) => f.endsWith(".ts"))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
let failed = 0;
for (const bench of benches) {
  console.log(`\n## ${bench}\n`);
  const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", `bench/${bench}`], { stdio: "inherit" });
  if (r.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);
