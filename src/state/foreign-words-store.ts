import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { ForeignWords, ForeignWordsFormatError, type ForeignWordsHit } from "../core/foreign-words.js";
import type { TrustLevel } from "../core/trust-levels.js";
import { writeFileAtomic } from "./atomic-file.js";
import { ensureDirDurable } from "./durable-dir.js";
import { withFileLock } from "./file-lock.js";
import { setAside } from "./quarantine.js";
import { readStateFile } from "./state-file-read.js";

/**
 * The words of messages someone else wrote that the host filed as the owner's
 * (core/foreign-words.ts), in `<workspace>/.provenance/foreign-words.json`, shared by every
 * process of the workspace. Each change is a read-modify-write under a lock file, written
 * atomically. A file that cannot be read is set aside and the loss recorded: what it held is not
 * known, so every file asked about is labelled once, as if it held such words.
 */
export class ForeignWordsStore {
  readonly file: string;
  private readonly dir: string;

  constructor(
    workspaceDir: string,
    private readonly onCorrupt: (detail: string, movedTo: string) => void = () => undefined,
  ) {
    this.dir = join(workspaceDir, ".provenance");
    this.file = join(this.dir, "foreign-words.json");
  }

  /** Keeps a message's words; false when there are too few to look for, or the same are kept. */
  record(sessionId: string, level: TrustLevel, text: string, now: Date): boolean {
    return this.update((words) => words.record(sessionId, level, text, now.toISOString()));
  }

  /**
   * Of `files` (path and content, read by the caller), the ones that hold words not labelled there
   * before, each with the message it holds; they are noted as labelled. `read` is called only when
   * anything is looked for.
   */
  takeHits(read: () => readonly { readonly path: string; readonly text: string }[]): ForeignWordsHit[] {
    if (readStateFile(this.file).kind === "missing") return [];
    return this.update((words) => {
      if (words.empty) return [];
      return words.takeHits(read());
    }, (hits) => hits.length > 0);
  }

  private update<T>(body: (words: ForeignWords) => T, changed: (result: T) => boolean = (result) => result === true): T {
    ensureDirDurable(this.dir);
    return withFileLock(`${this.file}.lock`, () => {
      const { words, repaired } = this.load();
      const result = body(words);
      if (changed(result) || repaired) writeFileAtomic(this.file, words.serialize());
      return result;
    });
  }

  private load(): { words: ForeignWords; repaired: boolean } {
    const file = readStateFile(this.file);
    if (file.kind === "missing") return { words: new ForeignWords(), repaired: false };
    let detail: string;
    if (file.kind === "bad") detail = file.detail;
    else {
      try {
        return { words: ForeignWords.parse(file.text), repaired: false };
      } catch (error) {
        if (!(error instanceof ForeignWordsFormatError)) throw error;
        detail = error.message;
      }
    }
    const now = new Date();
    const movedTo = setAside(this.file, now);
    this.onCorrupt(detail, movedTo);
    const words = new ForeignWords();
    words.markLost(now.toISOString(), movedTo);
    return { words, repaired: true };
  }
}

/** The most of a prompt file that is looked in: the host puts a file's first 20,000 characters or so into the prompt. */
export const MAX_READ_BYTES = 1024 * 1024;

/** The start of a file as text, or null when it cannot be read (absent, not a file): nothing of it is in the prompt then. */
export function readHead(path: string, maxBytes = MAX_READ_BYTES): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buffer = Buffer.alloc(maxBytes);
    let read = 0;
    for (let n = -1; n !== 0 && read < maxBytes; read += n) n = readSync(fd, buffer, read, maxBytes - read, null);
    return buffer.subarray(0, read).toString("utf8");
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
