/**
 * Latency of the guard's hot path, `beforeToolCall` and `toolsFor`, at turn graphs of 10, 1,000
 * and 100,000 nodes, and memory per graph node. The 10-node graph is the baseline: decisions
 * read the graph's high-water mark and never scan it, so the 100,000-node cost should be within
 * 2x of it. Run: node --expose-gc --import tsx bench/guard-decisions.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProvenanceGraph } from "../src/core/provenance-graph.js";
import { Guard } from "../src/guard.js";
import { median, percentile, printTable, sampleMicros } from "./lib/stats.js";

const SIZES = [10, 1_000, 100_000];
const SAMPLES = 20_000;
const TOOLS = ["read", "write", "exec", "message", "web_fetch", "browser", "gateway", "memory_search", "cron", "mystery_tool"];
const OWNER = { id: "+15551234", isOwner: true };

const sample = (fn: () => void): number[] => sampleMicros(fn, SAMPLES, 2_000);

function guardWithGraph(nodes: number, workspaceDir: string): Guard {
  const guard = Guard.open({ workspaceDir });
  guard.beginTurn({ sessionId: "bench", sender: OWNER, provider: "telegram", text: "go" });
  const graph = guard.graph("bench")!;
  while (graph.size < nodes - 1) graph.add("tool", "read response", "trusted", { tool: "read" });
  guard.afterToolCall("bench", { tool: "web_fetch", output: "page" });
  return guard;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  for (let k = 0; k < 5; k++) gc();
  const before = process.memoryUsage().heapUsed;
  const kept: ProvenanceGraph[] = [new ProvenanceGraph("mem")];
  for (let n = 0; n < 100_000; n++) kept[0]!.add("tool", "read response", "trusted", { tool: "read" });
  for (let k = 0; k < 5; k++) gc();
  const perNode = (process.memoryUsage().heapUsed - before) / kept[0]!.size;
  console.log(`memory per graph node: ${perNode.toFixed(0)} bytes (100,000 nodes, heapUsed delta)`);
} else {
  console.log("memory per node: run with node --expose-gc to measure");
}

const rows: (string | number)[][] = [];
const baseline: Record<string, number> = {};
const ledgerRows: (string | number)[][] = [];
const workspaces: string[] = [];
for (const size of SIZES) {
  const ws = mkdtempSync(join(tmpdir(), "provenant-bench-"));
  workspaces.push(ws);
  const guard = guardWithGraph(size, ws);
  let i = 0;
  const calls = {
    "beforeToolCall (allow)": () => void guard.beforeToolCall("bench", { tool: "read", params: { path: "a" } }),
    "beforeToolCall (confirm)": () => void guard.beforeToolCall("bench", { tool: "exec", params: { command: "id" } }),
    "toolsFor (10 tools)": () => void guard.toolsFor("bench", TOOLS),
    "beforeToolCall (mixed)": () => void guard.beforeToolCall("bench", { tool: TOOLS[i++ % TOOLS.length]!, params: {} }),
  };
  for (const [name, fn] of Object.entries(calls)) {
    const us = sample(fn);
    const p50 = median(us);
    if (size === SIZES[0]) baseline[name] = p50;
    rows.push([name, size.toLocaleString("en"), p50.toFixed(2), percentile(us, 0.99).toFixed(2), Math.round(1e6 / p50).toLocaleString("en"), (p50 / baseline[name]!).toFixed(2)]);
  }
  // The decisions' ledger records were queued off the decision path; close() appends them all.
  const records = 3 * (SAMPLES + 2_000);
  const t0 = process.hrtime.bigint();
  guard.close();
  ledgerRows.push([size.toLocaleString("en"), records.toLocaleString("en"), (Number(process.hrtime.bigint() - t0) / 1000 / records).toFixed(2)]);
}
printTable(["operation", "graph nodes", "p50 µs", "p99 µs", "ops/s (1/p50)", "x 10-node"], rows);
console.log("\nledger append per decision, amortised (hash chain + group-commit fsync, off the decision path):");
printTable(["graph nodes", "records", "µs per record"], ledgerRows);

for (const ws of workspaces) rmSync(ws, { recursive: true, force: true });
