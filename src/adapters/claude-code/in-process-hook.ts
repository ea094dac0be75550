import { LEDGER_WAIT_MS, retryWhileLocked } from "../../ledger/writer-lock.js";
import { Guard } from "../../guard.js";
import { awaitPromptEntry, ClaudeCodeHooks } from "./claude-code-hooks.js";
import type { HookAnswer } from "./hook-answer.js";
import { parseHookEvent, type HookEvent } from "./hook-event.js";
import { hookConfig, projectDirOf } from "./hook-setup.js";
import { TurnMessages } from "./turn-messages.js";
import { failedEventAnswer, taintUnjudged } from "./unjudged-content.js";

export interface HookOptions {
  /** `--config <file>` of the hook's command line. */
  readonly configPath: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
}

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
    const turns = new TurnMessages(projectDir);
    // Before the guard is opened: its ledger stays free for other hooks while this one waits.
    await awaitPromptEntry(event, process.pid, turns);
    // The ledger may be held by another hook deciding in its own process, or by the guard service,
    // which came up after this hook gave up on it: between tries, the service is asked again.
    const opened = await retryWhileLocked<Guard | HookAnswer>(() => Guard.open({ config, workspaceDir: projectDir }), LEDGER_WAIT_MS, askService);
    if (!(opened instanceof Guard)) return opened;
    try {
      return new ClaudeCodeHooks(opened, turns).handle(event, process.pid);
    } finally {
      opened.close();
    }
  } catch (error) {
    return failedEventAnswer(input, event, error, (failed, reason) => taintUnjudged(projectDirOf(failed, options.env), failed.session_id, reason));
  }
}
