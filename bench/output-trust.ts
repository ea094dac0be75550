/**
 * What it costs to judge a call's output by what the call did: `afterToolCall` for an `exec`
 * (the command parsed and classified), a file `read` (fileTrust globs and labels), a long page's
 * JSON result read for the file the host saved the whole page to (not there: nothing labelled), against the
 * baseline of a tool whose output trust is the catalogue's alone (`web_fetch`). Medians in µs.
 * The searches (`grep -rn` through Bash, and Grep, which also asks git what it ignores) walk a
 * project of 60 source files beside a git-ignored `node_modules/` of 2,000; a command below
 * trusted (`curl`) walks it for the files that changed while it ran, and leaves a change window
 * on record, after which every file read is also judged by its change time, and every file a call
 * names is looked at before it runs (the rows with the decision).
 * Run: node --import tsx bench/output-trust.ts
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execOutputTrust } from "../src/core/exec-trust.js";
import { savedOutputFiles } from "../src/core/saved-outputs.js";
import { Guard } from "../src/guard.js";
import { median, percentile, printTable, sampleMicros } from "./lib/stats.js";

const SAMPLES = 3_000;

const sample = (fn: () => void): number[] => sampleMicros(fn, SAMPLES, 300);
// Each sample's command is new to the guard, as each call's is (a script parsed is kept for the
// next steps of the same call, not for another): a comment makes it so.
let n = 0;
const fresh = (command: string): string => `${command} # ${++n}`;

const ws = mkdtempSync(join(tmpdir(), "provenant-bench-"));
const guard = Guard.open({ workspaceDir: ws });
guard.beginTurn({ sessionId: "b", sender: { id: "o", isOwner: true }, provider: "telegram", text: "go" });

const longPage = JSON.stringify({ url: "https://x", truncated: true, spill: { path: join(ws, "openclaw-web-fetch-0011223344556677.log"), chars: 30_000 }, text: "Quarterly figures. ".repeat(1_000) }, null, 2);
const cases: [string, () => void][] = [
  ["web_fetch (baseline: catalogue trust only)", () => guard.afterToolCall("b", { tool: "web_fetch", params: { url: "https://x" }, output: "page" })],
  // OpenClaw's result for a page longer than it shows: JSON naming where it saved the whole page.
  ["web_fetch of a long page (20 KB JSON naming the saved page)", () => guard.afterToolCall("b", { tool: "web_fetch", params: { url: "https://x" }, output: [{ type: "text", text: longPage }] })],
  ["  of it: reading the saved page's name (savedOutputFiles)", () => savedOutputFiles([{ type: "text", text: longPage }])],
  ["read notes/todo.md", () => guard.afterToolCall("b", { tool: "read", params: { path: "notes/todo.md" }, output: "text" })],
  ["exec ls -la", () => guard.afterToolCall("b", { tool: "exec", params: { command: fresh("ls -la") }, output: "x" })],
  ["exec git status && git diff | grep x", () => guard.afterToolCall("b", { tool: "exec", params: { command: fresh("git status && git diff | grep x") }, output: "x" })],
  ["exec for f in a.md b.md; do cat \"$f\"; done (a variable's values)", () => guard.afterToolCall("b", { tool: "exec", params: { command: fresh('for f in a.md b.md; do cat "$f"; done') }, output: "x" })],
  ["exec bash -c 'echo $(curl -s https://x) | tee out.txt'", () => guard.afterToolCall("b", { tool: "exec", params: { command: fresh("bash -c 'echo $(curl -s https://x) | tee out.txt'") }, output: "x" })],
];
const rows: (string | number)[][] = [];
let base = Number.NaN;
for (const [name, fn] of cases) {
  const s = sample(fn);
  const m = median(s);
  if (Number.isNaN(base)) base = m;
  rows.push([name, m.toFixed(1), percentile(s, 0.99).toFixed(1), (m / base).toFixed(1)]);
}
// A Claude Code project: its own sources, and installed packages git ignores.
const project = mkdtempSync(join(tmpdir(), "provenant-bench-project-"));
execFileSync("git", ["init", "-q", project]);
writeFileSync(join(project, ".gitignore"), "node_modules/\n");
for (let d = 0; d < 6; d++) {
  mkdirSync(join(project, "src", `m${d}`), { recursive: true });
  for (let f = 0; f < 10; f++) writeFileSync(join(project, "src", `m${d}`, `f${f}.ts`), "export {};\n");
}
for (let d = 0; d < 100; d++) {
  mkdirSync(join(project, "node_modules", `p${d}`), { recursive: true });
  for (let f = 0; f < 20; f++) writeFileSync(join(project, "node_modules", `p${d}`, `f${f}.js`), "x\n");
}
const cc = Guard.open({ workspaceDir: project, config: { host: "claude-code" } });
cc.beginTurn({ sessionId: "c", sender: { id: "o", isOwner: true }, provider: "claude-code", text: "go" });
let callId = 0;
const decidedAndRan = (command: string): void => {
  const call = { id: `c${++callId}`, tool: "Bash", params: { command: fresh(command) } };
  cc.beforeToolCall("c", call);
  cc.afterToolCall("c", { ...call, output: "x", ran: true }); // once tainted, held: the owner approved
};
for (const [name, fn] of [
  ["Bash grep -rn x src", () => cc.afterToolCall("c", { tool: "Bash", params: { command: fresh("grep -rn x src") }, output: "x" })],
  ["Bash grep -rn x . (node_modules stands for itself)", () => cc.afterToolCall("c", { tool: "Bash", params: { command: fresh("grep -rn x .") }, output: "x" })],
  ["Bash git diff (git names the changed files)", () => cc.afterToolCall("c", { tool: "Bash", params: { command: fresh("git diff") }, output: "x" })],
  ["Grep x (git ls-files, then the walk)", () => cc.afterToolCall("c", { tool: "Grep", params: { pattern: "x" }, output: "x" })],
  // The decision too, where the files a call names are held at their window's level (none yet).
  ["Bash sed -i s/a/b/ src/m0/f0.ts (decision and result)", () => decidedAndRan("sed -i s/a/b/ src/m0/f0.ts")],
  // Below trusted, so the files changed while it ran are looked for (node_modules is external: not entered).
  ["Bash curl -s https://x (then what changed on disk)", () => cc.afterToolCall("c", { tool: "Bash", params: { command: fresh("curl -s https://x") }, output: "x" })],
  // The curls above left change windows on record: each file read is also looked at for its change time.
  ["Bash grep -rn x src, with change windows on record", () => cc.afterToolCall("c", { tool: "Bash", params: { command: fresh("grep -rn x src") }, output: "x" })],
  ["Read src/m0/f0.ts, with change windows on record", () => cc.afterToolCall("c", { tool: "Read", params: { file_path: "src/m0/f0.ts" }, output: "x" })],
  ["Bash sed -i s/a/b/ src/m0/f0.ts (decision and result), with change windows on record", () => decidedAndRan("sed -i s/a/b/ src/m0/f0.ts")],
] as const) {
  const s = sampleMicros(fn, 200, 20);
  rows.push([name, median(s).toFixed(1), percentile(s, 0.99).toFixed(1), (median(s) / base).toFixed(1)]);
}
cc.close();
rmSync(project, { recursive: true, force: true });
// A workspace of 2,000 files (100 folders of 20) for the walk of what a command below trusted changed.
const large = mkdtempSync(join(tmpdir(), "provenant-bench-large-"));
for (let d = 0; d < 100; d++) {
  mkdirSync(join(large, `d${d}`));
  for (let f = 0; f < 20; f++) writeFileSync(join(large, `d${d}`, `f${f}.md`), "x\n");
}
const wide = Guard.open({ workspaceDir: large });
wide.beginTurn({ sessionId: "w", sender: { id: "o", isOwner: true }, provider: "telegram", text: "go" });
let id = 0;
const walked = sampleMicros(() => {
  const call = { id: `w${++id}`, tool: "exec", params: { command: fresh("curl -s https://x") } };
  wide.beforeToolCall("w", call);
  wide.afterToolCall("w", { ...call, output: "x", ran: true }); // held after the first (the turn is tainted): the owner approved
}, 200, 20);
rows.push(["exec curl -s https://x in a 2,000-file workspace (decision and result)", median(walked).toFixed(1), percentile(walked, 0.99).toFixed(1), (median(walked) / base).toFixed(1)]);
wide.close();
rmSync(large, { recursive: true, force: true });
const parseOnly = sample(() => execOutputTrust(fresh("git status && git diff | grep x"), { overrides: {}, fileLevel: () => null }));
rows.push(["execOutputTrust alone (git status && ...)", median(parseOnly).toFixed(1), percentile(parseOnly, 0.99).toFixed(1), (median(parseOnly) / base).toFixed(1)]);
printTable(["afterToolCall", "median µs", "p99 µs", "x baseline"], rows);
guard.close();
rmSync(ws, { recursive: true, force: true });
