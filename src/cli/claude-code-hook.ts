import type { HookAnswer } from "../adapters/claude-code/hook-answer.js";
import { askService } from "../service/service-client.js";

/**
 * What a hook keeps of its own timeout for answering after a wait for the owner: a hook Claude Code
 * times out gives no verdict, and the call would go on.
 */
const ANSWER_RESERVE_MS = 25_000;
/** The hook stops listening this long before its timeout, whatever the service says. */
const TIMEOUT_MARGIN_MS = 10_000;

/**
 * `provenant hook claude-code [--config <file>] [--timeout <s>]`: one Claude Code hook event on
 * stdin, the answer on stdout/stderr and in the exit code. The guard service decides when it can
 * be reached (started on demand); otherwise this process decides from the persisted state. Only
 * Node's own modules are loaded on the service path: a hook runs for every tool call.
 * `--timeout` is the hook's timeout in Claude Code's settings (`provenant init claude-code` writes
 * both): only a hook that knows it may wait for the owner's answer in the console.
 */
export async function runClaudeCodeHook(argv: readonly string[]): Promise<void> {
  const started = Date.now() - process.uptime() * 1000;
  const configPath = configOption(argv);
  const timeoutMs = timeoutOption(argv);
  const input = await readStdin();
  const budget = timeoutMs === null ? 0 : Math.floor(started + timeoutMs - ANSWER_RESERVE_MS - Date.now());
  const deadline = timeoutMs === null ? Number.POSITIVE_INFINITY : started + timeoutMs - TIMEOUT_MARGIN_MS;
  const request = { input, configPath, projectDir: process.env["CLAUDE_PROJECT_DIR"] ?? null, ...(budget > 0 ? { waitBudgetMs: budget } : {}) };
  let answer: HookAnswer | null = await askService(request, process.env, deadline);
  if (answer === null) {
    const { decideInProcess } = await import("../adapters/claude-code/in-process-hook.js");
    answer = await decideInProcess(input, { configPath, env: process.env }, () => askService(request, process.env, deadline, { start: false }));
  }
  process.stdout.write(answer.stdout);
  process.stderr.write(answer.stderr);
  process.exitCode = answer.exitCode;
}

/** `--timeout <seconds>`: a whole number from 1 to 600, else none. */
function timeoutOption(argv: readonly string[]): number | null {
  const i = argv.indexOf("--timeout");
  const value = i >= 0 ? argv[i + 1] : undefined;
  if (value === undefined || !/^\d{1,3}$/.test(value)) return null;
  const seconds = Number(value);
  return seconds >= 1 && seconds <= 600 ? seconds * 1000 : null;
}

function configOption(argv: readonly string[]): string | null {
  const i = argv.indexOf("--config");
  const value = i >= 0 ? argv[i + 1] : undefined;
  return value !== undefined && value !== "" ? value : null;
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on("data", (c: Buffer) => chunks.push(c));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}
