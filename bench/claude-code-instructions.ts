/**
 * What it costs to find and judge the instructions Claude Code loads with no tool call: a
 * PostToolUse of Read through the hook handler (the call judged, then the instruction files of the
 * directories down to the file looked for) against the guard's judgement of the same Read alone, in
 * a project four directories deep with a CLAUDE.md in one of them; and SessionStart (every
 * directory up to the root, the user's own, the rules, the skills and commands, the imports, the
 * project's auto memory: an index and three notes),
 * alone and with the directories the session was launched with looked up (the settings, and the
 * command lines of the processes above this one). Medians in µs.
 * Run: node --import tsx bench/claude-code-instructions.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { projectKey } from "../src/adapters/claude-code/auto-memory.js";
import { ClaudeCodeHooks } from "../src/adapters/claude-code/claude-code-hooks.js";
import { TurnMessages } from "../src/adapters/claude-code/turn-messages.js";
import { parseHookEvent } from "../src/adapters/claude-code/hook-event.js";
import { Guard } from "../src/guard.js";
import { median, percentile, printTable, sampleMicros } from "./lib/stats.js";

const SAMPLES = 2_000;

const home = mkdtempSync(join(tmpdir(), "provenant-bench-home-"));
const project = join(home, "work", "app");
const deep = join(project, "packages", "core", "src", "parser");
mkdirSync(deep, { recursive: true });
mkdirSync(join(project, ".claude", "rules"), { recursive: true });
writeFileSync(join(project, "CLAUDE.md"), "# App\nStyle: @docs/style.md\n");
mkdirSync(join(project, "docs"));
writeFileSync(join(project, "docs", "style.md"), "Two spaces.\n");
writeFileSync(join(project, ".claude", "rules", "tests.md"), "Run the tests.\n");
writeFileSync(join(project, "packages", "core", "CLAUDE.md"), "# core\n");
// A git working copy with an auto memory of an index and three notes, as Claude Code keeps it.
mkdirSync(join(project, ".git"));
const memory = join(home, ".claude", "projects", projectKey(project), "memory");
mkdirSync(memory, { recursive: true });
writeFileSync(join(memory, "MEMORY.md"), "- [deploy](deploy.md): how we deploy\n- [style](style.md)\n- [people](people.md)\n");
for (const note of ["deploy", "style", "people"]) writeFileSync(join(memory, `${note}.md`), `---\nname: ${note}\n---\nA note.\n`);
writeFileSync(join(deep, "lexer.ts"), "export {};\n");

const guard = Guard.open({ workspaceDir: project, homeDir: home, config: { host: "claude-code" } });
const hooks = new ClaudeCodeHooks(guard, new TurnMessages(project), home);
const event = (fields: Record<string, unknown>) => parseHookEvent(JSON.stringify({ session_id: "b", cwd: project, ...fields }));
hooks.handle(event({ hook_event_name: "UserPromptSubmit", prompt: "go" }));
const read = { tool_name: "Read", tool_input: { file_path: join(deep, "lexer.ts") }, tool_response: "export {};" };
const postRead = event({ hook_event_name: "PostToolUse", ...read });
const start = event({ hook_event_name: "SessionStart", source: "startup" });

const rows: (string | number)[][] = [];
let base = Number.NaN;
for (const [name, fn] of [
  ["guard.afterToolCall Read (baseline: the file alone)", () => guard.afterToolCall("b", { tool: "Read", params: read.tool_input, output: read.tool_response, ran: true })],
  ["PostToolUse Read, with the directories' instructions", () => hooks.handle(postRead)],
  ["SessionStart (memory, rules, skills, commands, imports, auto memory)", () => hooks.handle(start)],
  ["SessionStart, with the launch directories looked up", () => hooks.handle(start, process.pid)],
] as const) {
  const s = sampleMicros(fn, SAMPLES, 200);
  const m = median(s);
  if (Number.isNaN(base)) base = m;
  rows.push([name, m.toFixed(1), percentile(s, 0.99).toFixed(1), (m / base).toFixed(2)]);
}
printTable(["hook work", "median µs", "p99 µs", "x baseline"], rows);
guard.close();
rmSync(home, { recursive: true, force: true });
