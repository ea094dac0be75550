/**
 * Cost of argument provenance per tool call: recording an output (`observe`), and tracing a
 * side-effecting call's arguments (`traceArguments` + `decideByArguments`) against contexts of 1,
 * 10 and 100 real AgentDojo tool outputs. The baseline, measured in the same run, is the guard's
 * own decision for the same call with argument provenance off; the last rows are the guard's
 * decision with it on, so the ratio is the overhead a deployment pays per call.
 * Run: node --expose-gc --import tsx bench/value-tracing.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCorpus } from "../src/benchmarks/agentdojo/corpus.js";
import { decideByArguments } from "../src/core/argument-decision.js";
import type { ToolArgumentRoles } from "../src/core/argument-roles.js";
import { ValueProvenance } from "../src/core/value-provenance.js";
import { Guard } from "../src/guard.js";
import { median, percentile, printTable, sampleMicros } from "./lib/stats.js";

const CORPUS = join(import.meta.dirname, "../../shared/corpora/agentdojo-v1");
const SAMPLES = 5_000;
const SIZES = [1, 10, 100];
const ROLES: ToolArgumentRoles = { send_email: { recipients: "target", subject: "content", body: "content" } };
const OWNER_TEXT = "Please send a summary of the file 'client-meeting-minutes.docx' to john.mitchell@gmail.com via email.";
const CALL = {
  recipients: ["john.mitchell@gmail.com"],
  subject: "Summary of the client meeting",
  body: "Hi John, here is a short summary of our meeting: we agreed on the next steps and will meet again on 2024-06-01.",
};

const sample = (fn: () => void, n = SAMPLES): number[] => sampleMicros(fn, n, Math.min(500, n));

const corpus = await loadCorpus(CORPUS);
const outputs = corpus.flatMap((s) => s.user_tasks.flatMap((t) => t.ground_truth.map((g) => g.output_default_env)));
const meanBytes = outputs.reduce((n, o) => n + Buffer.byteLength(o), 0) / outputs.length;

function context(size: number): ValueProvenance {
  const vp = new ValueProvenance();
  vp.observe({ id: "m", kind: "owner", trust: "trusted" }, OWNER_TEXT);
  for (let i = 0; i < size; i++) vp.observe({ id: `c${i}`, kind: "tool", tool: "search_files", trust: "external" }, outputs[i % outputs.length]);
  return vp;
}

const rows: (string | number)[][] = [];
let k = 0;
const observe = sample(() => {
  const vp = new ValueProvenance();
  vp.observe({ id: "c", kind: "tool", tool: "t", trust: "external" }, outputs[k++ % outputs.length]);
});
rows.push([`observe (one output, mean ${Math.round(meanBytes)} B)`, "-", median(observe).toFixed(1), percentile(observe, 0.99).toFixed(1), "-"]);

const workspaces: string[] = [];
for (const size of SIZES) {
  const vp = context(size);
  const trace = sample(() => void decideByArguments(vp.traceArguments("send_email", CALL, ROLES)));

  const ws = mkdtempSync(join(tmpdir(), "provenant-bench-"));
  workspaces.push(ws);
  const guardFor = (argumentProvenance: boolean): Guard => {
    const guard = Guard.open({
      workspaceDir: mkdtempSync(join(ws, "g-")),
      config: { argumentProvenance, toolArgumentRoles: ROLES, toolOutputTaints: { search_files: "external", send_email: "trusted" }, toolActionClasses: { send_email: "send" } },
    });
    guard.beginTurn({ sessionId: "b", sender: { id: "o", isOwner: true }, provider: "telegram", text: OWNER_TEXT });
    for (let i = 0; i < size; i++) guard.afterToolCall("b", { tool: "search_files", output: outputs[i % outputs.length] });
    return guard;
  };
  const off = guardFor(false);
  const on = guardFor(true);
  const plain = sample(() => void off.beforeToolCall("b", { tool: "send_email", params: CALL }));
  const traced = sample(() => void on.beforeToolCall("b", { tool: "send_email", params: CALL }));
  off.close();
  on.close();
  const base = median(plain);
  rows.push([`beforeToolCall, argument provenance off (baseline)`, size, base.toFixed(1), percentile(plain, 0.99).toFixed(1), "1.00"]);
  rows.push([`traceArguments + decideByArguments`, size, median(trace).toFixed(1), percentile(trace, 0.99).toFixed(1), (median(trace) / base).toFixed(2)]);
  rows.push([`beforeToolCall, argument provenance on`, size, median(traced).toFixed(1), percentile(traced, 0.99).toFixed(1), (median(traced) / base).toFixed(2)]);
}
printTable(["operation", "outputs in context", "p50 µs", "p99 µs", "x baseline"], rows);
for (const ws of workspaces) rmSync(ws, { recursive: true, force: true });
