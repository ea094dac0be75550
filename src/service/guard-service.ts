import { ClaudeCodeHooks } from "../adapters/claude-code/claude-code-hooks.js";
import type { HookAnswer } from "../adapters/claude-code/hook-answer.js";
import { parseHookEvent, type HookEvent } from "../adapters/claude-code/hook-event.js";
import { hookConfig, projectDirOf } from "../adapters/claude-code/hook-setup.js";
import { TurnMessages } from "../adapters/claude-code/turn-messages.js";
import { failedEventAnswer, taintUnjudged } from "../adapters/claude-code/unjudged-content.js";
import { Guard } from "../guard.js";
import { retryWhileLocked } from "../ledger/writer-lock.js";
import { PendingApprovalStore } from "../state/pending-approval-store.js";
import type { ServiceRequest } from "./service-protocol.js";

interface Held {
  readonly configKey: string;
  readonly guard: Guard;
  readonly hooks: ClaudeCodeHooks;
  readonly approvals: PendingApprovalStore;
}

/**
 * The guards of one user's Claude Code projects, held in memory between hook processes: a
 * session's turn graph and what its values came from live here from one hook to the next, and
 * its watermarks, staged writes and ledger persist as in any guard. One guard per project; a
 * changed configuration file closes the old guard and opens a new one.
 */
export class GuardService {
  private readonly guards = new Map<string, Held>();

  /** Where the service's own notes go (its stderr is nobody's terminal: by default nowhere). */
  constructor(private readonly log: (message: string) => void = () => undefined) {}

  /**
   * One hook event. A PreToolUse the guard holds, from a hook that can wait (`waitBudgetMs`), waits
   * for the owner's answer while a console shows the approvals inbox (held-call-wait.ts).
   */
  async handle(request: ServiceRequest, connection: { readonly signal: AbortSignal; readonly onWaiting: (until: number) => void; readonly peerPid?: number } | null = null): Promise<HookAnswer> {
    let event: HookEvent | undefined;
    let held: Held | undefined;
    try {
      event = parseHookEvent(request.input);
      const projectDir = projectDirOf(event, { CLAUDE_PROJECT_DIR: request.projectDir ?? undefined });
      const { config } = hookConfig(request.configPath);
      held = await this.held(projectDir, config);
      const budgetMs = request.waitBudgetMs ?? 0;
      // The hook process on the other end of the socket, as the kernel reports it.
      const hookPid = connection?.peerPid;
      await held.hooks.awaitPromptEntry(event, hookPid);
      if (connection === null || budgetMs <= 0) return held.hooks.handle(event, hookPid);
      const wait = { store: held.approvals, origin: projectDir, budgetMs, signal: connection.signal, onWaiting: connection.onWaiting, log: this.log };
      return await held.hooks.handleWaiting(event, wait, held.guard, hookPid);
    } catch (error) {
      return failedEventAnswer(request.input, event, error, (failed, reason) => {
        const projectDir = projectDirOf(failed, { CLAUDE_PROJECT_DIR: request.projectDir ?? undefined });
        const guard = held?.guard ?? this.guards.get(projectDir)?.guard;
        // The project's guard, when one is open, holds the session in memory: raised there (and so
        // on record), else on record for the guard that opens next.
        if (guard === undefined) return taintUnjudged(projectDir, failed.session_id, reason);
        guard.inheritTaint(failed.session_id, "untrusted", reason);
        return null;
      });
    }
  }

  /** The project's guard, opened once its ledger is free; other requests go on being answered meanwhile. */
  private held(projectDir: string, config: Record<string, unknown>): Promise<Held> {
    const configKey = JSON.stringify(config);
    // A hook deciding in its own process may hold the ledger; another request for the project may
    // have opened the guard while this one waited.
    return retryWhileLocked(() => {
      const existing = this.guards.get(projectDir);
      return existing !== undefined && existing.configKey === configKey ? existing : this.open(projectDir, config, configKey);
    });
  }

  private open(projectDir: string, config: Record<string, unknown>, configKey: string): Held {
    this.guards.get(projectDir)?.guard.close();
    this.guards.delete(projectDir);
    const guard = Guard.open({ config, workspaceDir: projectDir });
    const approvals = new PendingApprovalStore(projectDir, (file, detail) => this.log(`approval store: ignoring ${file}: ${detail}`));
    const held = { configKey, guard, hooks: new ClaudeCodeHooks(guard, new TurnMessages(projectDir)), approvals };
    this.guards.set(projectDir, held);
    return held;
  }

  /** Flushes and closes every guard (watermarks, ledgers). */
  close(): void {
    for (const held of this.guards.values()) held.guard.close();
    this.guards.clear();
  }
}
