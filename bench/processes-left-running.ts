/**
 * The look for processes a command left running (state/processes-left-running.ts), made after
 * each result of a command below trusted that may write by names it chooses, and the look at
 * whether an open window's processes still run, made before every decision while one is open.
 * Baselines in the same run: listing `/proc` alone (what any look at the process table costs),
 * and a bare `stat` of `/proc/<pid>`. Run: npx tsx bench/processes-left-running.ts
 */
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { processesLeftRunning, stillRunning } from "../src/state/processes-left-running.js";
import { median, printTable, sampleMicros } from "./lib/stats.js";

// Two processes left behind, as a command that backgrounds a download leaves a shell and its curl.
const since = Date.now();
const left = [spawn("sleep", ["60"], { stdio: "ignore" }), spawn("sleep", ["60"], { stdio: "ignore" })];
try {
  const found = processesLeftRunning(since) ?? [];
  const processes = readdirSync("/proc").filter((name) => /^\d+$/.test(name)).length;
  const listing = median(sampleMicros(() => readdirSync("/proc"), 500, 50));
  const scan = median(sampleMicros(() => processesLeftRunning(since), 500, 50));
  const stat = median(sampleMicros(() => found.forEach((p) => statSync(`/proc/${p.pid}`)), 5000, 500));
  const check = median(sampleMicros(() => found.forEach(stillRunning), 5000, 500));
  printTable(
    ["case", "median µs", "× baseline"],
    [
      [`list /proc (baseline, ${processes} processes)`, listing.toFixed(1), "1.0"],
      [`processes left running (after a result; ${found.length} found)`, scan.toFixed(1), (scan / listing).toFixed(1)],
      [`stat /proc/<pid> of ${found.length} (baseline)`, stat.toFixed(1), "1.0"],
      [`still running? ${found.length} (before each decision while open)`, check.toFixed(1), (check / stat).toFixed(1)],
    ],
  );
} finally {
  for (const child of left) child.kill("SIGKILL");
}
