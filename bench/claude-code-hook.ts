/**
 * What a provenant hook costs Claude Code per event: the round trip of one hook process (spawn
 * node, read the event on stdin, answer, exit), as Claude Code runs it, against a no-op `node`
 * hook process (reads stdin, prints nothing) in the same run, interleaved. Three paths: through
 * the guard service (the normal case, service already up), in-process from the persisted state
 * (the service unreachable), and the no-op baseline. Target: service path p50 <= 1.5x the no-op.
 * Run: npm run build && npx tsx bench/claude-code-hook.ts [rounds=60]
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, percentile, printTable } from "./lib/stats.js";

const ROUNDS = Number(process.argv[2] ?? 60);
const HOOK = join(import.meta.dirname, "../dist/cli/hook-main.js");
if (!existsSync(HOOK)) throw new Error("dist/cli/hook-main.js is missing: run npm run build first");

const root = mkdtempSync(join(tmpdir(), "provenant-bench-cc-"));
// One project per path: the service holds its project's ledger, which an in-process hook of the
// same project would wait for.
const project = join(root, "project");
const otherProject = join(root, "project-in-process");
mkdirSync(project);
mkdirSync(otherProject);
const noop = join(root, "noop.mjs");
writeFileSync(noop, "process.stdin.resume(); process.stdin.on('end', () => {});\n");
const serviceDir = join(root, "service");
const unreachable = join(root, "no-service");
mkdirSync(unreachable, { mode: 0o755 });
chmodSync(unreachable, 0o755);

const event = (cwd: string): string =>
  JSON.stringify({ session_id: "bench-session", cwd, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "git status" }, tool_use_id: "toolu_bench" });

function run(args: readonly string[], env: Record<string, string>, cwd = project): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? "", HOME: root, CLAUDE_PROJECT_DIR: cwd, ...env }, stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - start));
    child.stdin.end(event(cwd));
  });
}

const service = { PROVENANT_SERVICE_DIR: serviceDir, PROVENANT_SERVICE_IDLE_MS: "30000" };
const inProcess = { PROVENANT_SERVICE_DIR: unreachable };
// Start the service and open the session once, as the session's first hook would.
spawnSync(process.execPath, [HOOK, "claude-code"], { input: JSON.stringify({ session_id: "bench-session", cwd: project, hook_event_name: "UserPromptSubmit", prompt: "status" }), env: { PATH: process.env.PATH ?? "", HOME: root, ...service } });

const samples = { noop: [] as number[], service: [] as number[], inProcess: [] as number[] };
for (let i = 0; i < 5; i++) await run([noop], {});
for (let i = 0; i < ROUNDS; i++) {
  samples.noop.push(await run([noop], {}));
  samples.service.push(await run([HOOK, "claude-code"], service));
  samples.inProcess.push(await run([HOOK, "claude-code"], inProcess, otherProject));
}

const base = median(samples.noop);
printTable(
  ["hook process", "p50 ms", "p90 ms", "p50 / no-op"],
  [
    ["no-op node (baseline)", base.toFixed(1), percentile(samples.noop, 90).toFixed(1), "1.00x"],
    ["provenant, guard service", median(samples.service).toFixed(1), percentile(samples.service, 90).toFixed(1), `${(median(samples.service) / base).toFixed(2)}x`],
    ["provenant, in-process (no service)", median(samples.inProcess).toFixed(1), percentile(samples.inProcess, 90).toFixed(1), `${(median(samples.inProcess) / base).toFixed(2)}x`],
  ],
);

// The service idles out 30 s after the last hook; the directory goes after it.
while (existsSync(join(serviceDir, "guard.sock"))) await new Promise((r) => setTimeout(r, 100));
rmSync(root, { recursive: true, force: true });
