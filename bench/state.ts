/**
 * The state layer's hot paths, each against the plain file-system work it cannot avoid:
 * the protected-path check run on every Write/Edit call, the watermark read and escalation run
 * on every turn and tool result, staging a blocked write, and recording a sealed turn's graph.
 * Run: npx tsx bench/state.ts
 */
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { memoryFileMatcher } from "../src/core/memory-files.js";
import { writeFileAtomic } from "../src/state/atomic-file.js";
import { BlockedWriteStore } from "../src/state/blocked-write-store.js";
import { protectedMemoryTarget } from "../src/state/resolve-path.js";
import { FileWatermarkStore } from "../src/state/watermark-store.js";
import { appendTurnGraph } from "../src/state/turn-graph-log.js";
import { ProvenanceGraph } from "../src/core/provenance-graph.js";
import { measure, printTable } from "./lib/timing.js";

const ws = realpathSync(mkdtempSync(join(tmpdir(), "provenant-bench-state-")));
mkdirSync(join(ws, "memory"));
mkdirSync(join(ws, "src", "lib"), { recursive: true });
for (let i = 0; i < 30; i += 1) writeFileSync(join(ws, "memory", `2026-01-${String(i + 1).padStart(2, "0")}.md`), "note\n");
writeFileSync(join(ws, "SOUL.md"), "soul\n");
writeFileSync(join(ws, "src", "lib", "index.ts"), "export {};\n");
writeFileSync(join(ws, "src", "lib", "linked.ts"), "x\n");
linkSync(join(ws, "src", "lib", "linked.ts"), join(ws, "src", "lib", "linked-twin.ts"));

let sink = 0;
const matcher = memoryFileMatcher();
/** What any check must do at least: make the path absolute, realpath its directory, match the name. */
function naiveCheck(raw: string): boolean {
  const abs = resolve(ws, raw);
  const rel = relative(ws, join(realpathSync(dirname(abs)), abs.slice(dirname(abs).length + 1)));
  return matcher.matches(rel);
}

const N = 2000;
const paths: Array<[string, string]> = [
  ["ordinary file", "src/lib/index.ts"],
  ["memory file", "./memory/../SOUL.md"],
  ["new daily note", "memory/2026-02-10.md"],
  ["hard-linked ordinary file", "src/lib/linked.ts"],
];
for (const [label, raw] of paths) {
  const base = measure("realpath(dir) + match", N, 25, () => {
    for (let i = 0; i < N; i += 1) sink += naiveCheck(raw) ? 1 : 0;
  });
  const ours = measure("protectedMemoryTarget", N, 25, () => {
    for (let i = 0; i < N; i += 1) sink += protectedMemoryTarget(ws, raw) === null ? 0 : 1;
  });
  printTable(`protected-path check: ${label} (${raw})`, "checks", [base, ours], base);
}

const store = new FileWatermarkStore(ws);
const map = new Map([["session:a", { level: "untrusted" }]]);
store.escalate("session:a", "untrusted", "web", "web_fetch", new Date());
const mapGet = measure("Map.get", N * 10, 25, () => {
  for (let i = 0; i < N * 10; i += 1) sink += map.get("session:a") === undefined ? 0 : 1;
});
const get = measure("store.get", N * 10, 25, () => {
  for (let i = 0; i < N * 10; i += 1) sink += store.get("session:a") === undefined ? 0 : 1;
});
printTable("watermark read (per turn)", "reads", [mapGet, get], mapGet);

const stat = measure("statSync", N, 25, () => {
  for (let i = 0; i < N; i += 1) sink += Number(statSync(store.file).size);
});
const noop = measure("escalate, no change", N, 25, () => {
  for (let i = 0; i < N; i += 1) sink += store.escalate("session:a", "external", "mail", "gog", new Date()) ? 1 : 0;
});
printTable("watermark escalation that changes nothing (per tool result)", "calls", [stat, noop], stat);

const W = 40;
const bytes = `${JSON.stringify({ version: 1, watermarks: { "session:a": { level: "untrusted" } } }, null, 2)}\n`;
const atomic = measure("writeFileAtomic", W, 9, () => {
  for (let i = 0; i < W; i += 1) writeFileAtomic(join(ws, "plain.json"), bytes);
});
let k = 0;
const durable = measure("escalate + reset, durable", W, 9, () => {
  for (let i = 0; i < W / 2; i += 1) {
    k += 1;
    store.escalate(`s${k}`, "untrusted", "web", "web_fetch", new Date());
    store.reset(`s${k}`, "trusted", "owner", new Date());
  }
});
const blocked = new BlockedWriteStore(ws);
const stage = measure("stage blocked write", W, 9, () => {
  for (let i = 0; i < W; i += 1) {
    blocked.stage({
      sessionId: "s",
      tool: "write",
      operation: "write",
      targetPath: "SOUL.md",
      resolvedPath: join(ws, "SOUL.md"),
      content: "x".repeat(2000),
      taint: "untrusted",
      reason: "bench",
      now: new Date(),
    });
  }
});
// A typical turn: system prompt, history, three model calls and tool outputs, the response.
const turn = new ProvenanceGraph("s#1");
turn.add("system_prompt", "system prompt", "trusted");
turn.add("history", "owner message", "trusted");
for (let i = 0; i < 3; i += 1) {
  turn.add("llm_call", `model call ${i + 1}`, "trusted");
  turn.add("tool", "web_fetch response", "untrusted", { tool: "web_fetch" });
}
turn.add("output", "response", "untrusted");
turn.seal();
const graphs = measure("turn graph append (per turn end)", W, 9, () => {
  for (let i = 0; i < W; i += 1) appendTurnGraph(ws, "s", turn, new Date());
});
printTable("durable writes (fsync'd)", "writes", [atomic, durable, stage, graphs], atomic);

store.close();
rmSync(ws, { recursive: true, force: true });
if (sink === 0) throw new Error("unreachable: results were discarded");
