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

/** Another hook of the same project may hold the ledger for a few milliseconds; wait this long at most. */
const LEDGER_WAIT_MS = 5_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * One hook event decided in this process, from the project's persisted state: the guard is
 * opened, told the event, and closed (its watermarks and ledger flushed) before the answer goes
 * out. The path a hook takes when the guard service cannot be reached.
 */
export function decideInProcess(input: string, options: HookOptions): HookAnswer {
  let event: HookEvent | undefined;
  try {
    event = parseHookEvent(input);
    const projectDir = projectDirOf(event, options.env);
    const { config } = hookConfig(options.configPath);
    const guard = openWaiting(() => Guard.open({ config, workspaceDir: projectDir }));
    try {
      return new ClaudeCodeHooks(guard).handle(event);
    } finally {
      guard.close();
    }
  } catch (error) {
    return failedHookAnswer(event?.hook_event_name ?? null, event !== undefined && "tool_name" in event ? event.tool_name : toolNameOf(input), error);
  }
}

function openWaiting(open: () => Guard): Guard {
  const deadline = Date.now() + LEDGER_WAIT_MS;
  for (;;) {
    try {
      return open();
    } catch (error) {
      if (!(error instanceof LedgerLockedError) || Date.now() > deadline) throw error;
      Atomics.wait(sleeper, 0, 0, 10);
    }
  }
}
