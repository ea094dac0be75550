/**
 * What a provenant hook costs Claude Code per event: the round trip of one hook process (spawn
 * node, read the event on stdin, answer, exit), as Claude Code runs it, against a no-op `node`
 * hook process (reads stdin, prints nothing) in the same run, interleaved. Three paths: through
 * the guard service (the normal case, service already up), in-process from the persisted state
 * (the service unreachable), and the no-op baseline. Target: service path p50 <= 1.5x the no-op.
 * Each PreToolUse names its prompt and a transcript shaped as Claude Code 2.1.332 writes one, 20
 * calls into the turn (about 2 MB after the prompt's entry), where the hook looks for what the
 * prompt came with. A second table times that lookup alone, back from the end of turns of several
 * lengths and on from where the last one stopped, against reading the whole turn in the same run.
 * Run: npm run build && npx tsx bench/claude-code-hook.ts [rounds=60]
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promptAttachments } from "../src/adapters/claude-code/prompt-attachments.js";
import { median, percentile, printTable, sampleMicros } from "./lib/stats.js";

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

/** A turn's transcript: the prompt's entry, then per call about what Claude Code writes (an assistant entry, its result, its attachments, the request's shape). */
function turnTranscript(file: string, calls: number): void {
  const lines = [JSON.stringify({ promptId: "p0", type: "user", message: { role: "user", content: "earlier" } }), JSON.stringify({ promptId: "bench-prompt", type: "user", message: { role: "user", content: [{ type: "text", text: "git status, then fix what it shows" }] } })];
  for (let i = 0; i < calls; i++) {
    lines.push(JSON.stringify({ type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: "git status" } }] } }));
    lines.push(JSON.stringify({ promptId: "bench-prompt", type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: "x".repeat(2_000) }] } }));
    lines.push(JSON.stringify({ type: "attachment", attachment: { type: "skill_listing", content: "s".repeat(57_000) } }));
    lines.push(JSON.stringify({ type: "api-request-shape", shape: "r".repeat(38_000) }));
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
}
const transcript = join(root, "transcript.jsonl");
turnTranscript(transcript, 20);

const event = (cwd: string): string =>
  JSON.stringify({
    session_id: "bench-session",
    cwd,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: "git status" },
    tool_use_id: "toolu_bench",
    prompt_id: "bench-prompt",
    transcript_path: transcript,
  });

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

// The lookup alone, in this process: back from the end of a turn of 2, 20 and 100 calls; on from
// where the last lookup stopped, one call's entries later; reading the whole file as the baseline.
const lookups: (string | number)[][] = [];
for (const calls of [2, 20, 100]) {
  const file = join(root, `turn-${calls}.jsonl`);
  turnTranscript(file, calls);
  const { size } = statSync(file);
  const whole = median(sampleMicros(() => readFileSync(file), 100, 10));
  const back = median(sampleMicros(() => promptAttachments(file, "bench-prompt", null), 100, 10));
  const onFrom = median(sampleMicros(() => promptAttachments(file, "bench-prompt", size - 100_000), 100, 10));
  lookups.push([`${calls} calls (${(size / 1e6).toFixed(1)} MB)`, (whole / 1000).toFixed(2), (back / 1000).toFixed(2), `${(back / whole).toFixed(2)}x`, (onFrom / 1000).toFixed(2)]);
}
printTable(["turn so far", "read whole file, p50 ms", "back to the prompt, p50 ms", "back / whole", "on from the last lookup, p50 ms"], lookups);

// The service idles out 30 s after the last hook; the directory goes after it.
while (existsSync(join(serviceDir, "guard.sock"))) await new Promise((r) => setTimeout(r, 100));
rmSync(root, { recursive: true, force: true });
