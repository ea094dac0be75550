import type { HookAnswer } from "../adapters/claude-code/hook-answer.js";
import { askService } from "../service/service-client.js";

/**
 * `provenant hook claude-code [--config <file>]`: one Claude Code hook event on stdin, the answer
 * on stdout/stderr and in the exit code. The guard service decides when it can be reached
 * (started on demand); otherwise this process decides from the persisted state. Only Node's own
 * modules are loaded on the service path: a hook runs for every tool call.
 */
export async function runClaudeCodeHook(argv: readonly string[]): Promise<void> {
  const configPath = configOption(argv);
  const input = await readStdin();
  let answer: HookAnswer | null = await askService({ input, configPath, projectDir: process.env["CLAUDE_PROJECT_DIR"] ?? null });
  if (answer === null) {
    const { decideInProcess } = await import("../adapters/claude-code/in-process-hook.js");
    answer = decideInProcess(input, { configPath, env: process.env });
  }
  process.stdout.write(answer.stdout);
  process.stderr.write(answer.stderr);
  process.exitCode = answer.exitCode;
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
