import { LedgerLockedError } from "../../ledger/writer-lock.js";
import { Guard } from "../../guard.js";
import { ClaudeCodeHooks, failedHookAnswer } from "./claude-code-hooks.js";
import type { HookAnswer } from "./hook-answer.js";
import { parseHookEvent, toolNameOf, type HookEvent } from "./hook-event.js";
import { hookConfig, projectDirOf } from "./hook-setup.js";

export interface HookOptions {
  /** `--config <file>` of the hook's command line. */
  readonly configPath: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The project's ledger is held by another hook deciding in its own process (milliseconds), or by
 * the guard service, which came up after this hook gave up on it and holds it while it runs:
 * for this long the hook asks the service again between tries.
 */
const LEDGER_WAIT_MS = 10_000;

/**
 * One hook event decided in this process, from the project's persisted state: the guard is
 * opened, told the event, and closed (its watermarks and ledger flushed) before the answer goes
 * out. The path a hook takes when the guard service cannot be reached; `askService` is tried again
 * while the ledger is held (null: still not reached).
 */
export async function decideInProcess(input: string, options: HookOptions, askService: () => Promise<HookAnswer | null>): Promise<HookAnswer> {
  let event: HookEvent | undefined;
  try {
    event = parseHookEvent(input);
    const projectDir = projectDirOf(event, options.env);
    const { config } = hookConfig(options.configPath);
    const deadline = Date.now() + LEDGER_WAIT_MS;
    for (;;) {
      let guard: Guard;
      try {
        guard = Guard.open({ config, workspaceDir: projectDir });
      } catch (error) {
        if (!(error instanceof LedgerLockedError) || Date.now() > deadline) throw error;
        const answer = await askService();
        if (answer !== null) return answer;
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      try {
        return new ClaudeCodeHooks(guard).handle(event, process.pid);
      } finally {
        guard.close();
      }
    }
  } catch (error) {
    return failedHookAnswer(event?.hook_event_name ?? null, event !== undefined && "tool_name" in event ? event.tool_name : toolNameOf(input), error);
  }
}
