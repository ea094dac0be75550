import { createHash } from "node:crypto";
import { readdirSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../state/atomic-file.js";
import { ensureDirDurable } from "../../state/durable-dir.js";
import { readStateFile } from "../../state/state-file-read.js";

/** A count file is a few dozen bytes; anything much bigger is not ours. */
const MAX_COUNT_BYTES = 4096;
/** No turn runs this long: a count left this long by a session that never ended is removed. */
const STALE_MS = 7 * 24 * 60 * 60 * 1000;

interface RunningTurn {
  readonly promptId: string;
  readonly queued: number;
}

/**
 * Per session, the prompt of the running turn and how many messages the owner sent into it while it
 * ran: the `UserPromptSubmit` of such a message names the running turn's prompt, and Claude Code
 * files the message in the transcript as the model gets it, which a call it leads to can outrun.
 * Kept in the project's state (`.provenance/claude-code-turns/`, a small file per session), not in
 * memory: the process that counts a message (the guard service, or a hook deciding in a process of
 * its own when the service cannot be reached) need not be the one that decides the call after it.
 * A count that cannot be read throws: the hook then fails safe, as for any failure of provenant's.
 */
export class TurnMessages {
  private readonly dir: string;

  constructor(projectDir: string) {
    this.dir = join(projectDir, ".provenance", "claude-code-turns");
  }

  /** A prompt submitted: a new turn's (its count starts at 0), or one more message sent into the running turn of that prompt. */
  submitted(session: string, promptId: string): void {
    const running = this.read(session);
    const turn: RunningTurn = { promptId, queued: running?.promptId === promptId ? running.queued + 1 : 0 };
    ensureDirDurable(this.dir);
    writeFileAtomic(this.file(session), JSON.stringify(turn));
  }

  /** How many messages the owner sent while the turn of `promptId` ran. */
  queuedInto(session: string, promptId: string): number {
    const running = this.read(session);
    return running?.promptId === promptId ? running.queued : 0;
  }

  /** The session ended: its count goes. */
  forget(session: string): void {
    removeIfThere(this.file(session));
  }

  /** Counts of sessions that never ended (Claude Code killed) go after a week untouched. */
  sweep(now: Date): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(this.dir, name);
      try {
        if (now.getTime() - statSync(path).mtimeMs > STALE_MS) removeIfThere(path);
      } catch {
        // Gone meanwhile, or not ours to judge: the next sweep looks again.
      }
    }
  }

  /** The session's file, named by a digest: a session id is Claude Code's string, never a path. */
  private file(session: string): string {
    return join(this.dir, `${createHash("sha256").update(session).digest("hex").slice(0, 32)}.json`);
  }

  private read(session: string): RunningTurn | null {
    const path = this.file(session);
    const found = readStateFile(path, MAX_COUNT_BYTES);
    if (found.kind === "missing") return null;
    if (found.kind === "bad") throw new Error(`the count of messages sent into the running turn (${path}) ${found.detail}`);
    let value: unknown;
    try {
      value = JSON.parse(found.text);
    } catch {
      throw new Error(`the count of messages sent into the running turn (${path}) is not JSON`);
    }
    const { promptId, queued } = (value ?? {}) as { promptId?: unknown; queued?: unknown };
    if (typeof promptId !== "string" || promptId === "" || typeof queued !== "number" || !Number.isSafeInteger(queued) || queued < 0) {
      throw new Error(`the count of messages sent into the running turn (${path}) is not one: ${JSON.stringify(found.text.slice(0, 200))}`);
    }
    return { promptId, queued };
  }
}

function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
