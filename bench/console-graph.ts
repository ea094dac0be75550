/**
 * The console's provenance-graph page: layered layout and SVG rendering of a turn, against
 * JSON.stringify of the same graph record (the cost of merely sending the data), same run.
 * Run: npx tsx bench/console-graph.ts
 */
import { ProvenanceGraph } from "../src/core/provenance-graph.js";
import { graphSvg } from "../src/service/console/console-graphs.js";
import { layoutGraph } from "../src/service/console/graph-layout.js";
import type { TurnGraphRecord } from "../src/state/turn-graph-log.js";
import { median, printTable, sampleMicros } from "./lib/stats.js";

/** A turn as the guard builds it: model call, tool output, ...; every tenth tool output forks from two nodes back. */
function turn(nodes: number): TurnGraphRecord {
  const g = new ProvenanceGraph("bench#1");
  g.add("system_prompt", "system prompt", "trusted");
  g.add("history", "owner message (telegram)", "trusted");
  for (let id = 2; id < nodes; id++) {
    if (id % 2 === 0) g.add("llm_call", `model call ${id / 2}`, "untrusted");
    else g.add("tool", id === 3 ? "web_fetch response: https://example.com/x" : "read response", id === 3 ? "untrusted" : "trusted", { tool: id === 3 ? "web_fetch" : "read", ...(id % 10 === 1 ? { parents: [id - 1, id - 2] } : {}) });
  }
  g.seal();
  return { version: 1, sessionId: "bench", endedAt: "2026-01-01T00:00:00.000Z", graph: JSON.parse(JSON.stringify(g.toJSON())) as TurnGraphRecord["graph"] };
}

const rows: (string | number)[][] = [];
for (const size of [1_000, 10_000, 100_000]) {
  const record = turn(size);
  const samples = size >= 100_000 ? 7 : 31;
  const baseline = median(sampleMicros(() => JSON.stringify(record), samples, 3));
  const layout = median(sampleMicros(() => layoutGraph(record.graph.nodes, record.graph.taintSource), samples, 3));
  const svg = median(sampleMicros(() => graphSvg(record), samples, 3));
  rows.push([size, (baseline / 1000).toFixed(2), (layout / 1000).toFixed(2), (svg / 1000).toFixed(2), (svg / baseline).toFixed(1)]);
}
printTable(["nodes", "JSON.stringify (ms, baseline)", "layout (ms)", "layout + SVG (ms)", "SVG / baseline"], rows);
