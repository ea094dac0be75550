import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FileLabels, type FileLabel } from "../core/file-labels.js";
import { writeFileAtomic } from "./atomic-file.js";
import { ensureDirDurable } from "./durable-dir.js";
import { withFileLock } from "./file-lock.js";

/** The guard's view of the file labels (core/file-labels.ts) and where they are kept. */
export interface FileLabelStore {
  get(path: string): FileLabel | undefined;
  /** Records a tainted write; durable before it returns. */
  mark(path: string, label: FileLabel): void;
  /** A whole-file rewrite from a trusted turn. */
  clear(path: string): void;
  /** Why the stored labels cannot be read (every file then counts as untrusted), or null. */
  readonly unreadable: string | null;
}

/** Labels held in memory only (a guard built without a workspace, tests). */
export class MemoryFileLabelStore implements FileLabelStore {
  private readonly labels = new FileLabels();
  readonly unreadable = null;
  get(path: string): FileLabel | undefined {
    return this.labels.get(path);
  }
  mark(path: string, label: FileLabel): void {
    this.labels.mark(path, label);
  }
  clear(path: string): void {
    this.labels.clear(path);
  }
}

/**
 * `<workspace>/.provenance/file-labels.json`. Each change re-reads the file under a lock (another
 * gateway may share the workspace), applies itself and writes the whole file atomically. A file
 * that cannot be parsed is left exactly as it is and reported; until the owner repairs or removes
 * it every file counts as `untrusted`, because forgetting the labels would make tainted files
 * trusted again.
 */
export class WorkspaceFileLabelStore implements FileLabelStore {
  private readonly dir: string;
  private readonly path: string;
  private labels = new FileLabels();
  unreadable: string | null = null;

  constructor(workspaceDir: string) {
    this.dir = join(workspaceDir, ".provenance");
    this.path = join(this.dir, "file-labels.json");
    this.labels = this.load() ?? new FileLabels();
  }

  get(path: string): FileLabel | undefined {
    return this.labels.get(path);
  }

  mark(path: string, label: FileLabel): void {
    this.change((labels) => labels.mark(path, label));
  }

  clear(path: string): void {
    this.change((labels) => labels.clear(path));
  }

  private change(apply: (labels: FileLabels) => boolean): void {
    if (this.unreadable !== null) {
      apply(this.labels); // kept for this process; the unreadable file is never overwritten
      return;
    }
    ensureDirDurable(this.dir);
    withFileLock(`${this.path}.lock`, () => {
      const current = this.load();
      if (current === undefined) {
        apply(this.labels);
        return;
      }
      if (apply(current)) writeFileAtomic(this.path, current.serialize());
      this.labels = current;
    });
  }

  /** The stored labels, a fresh set when there is no file, or undefined (and `unreadable` set). */
  private load(): FileLabels | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "ENOENT") return new FileLabels();
      this.unreadable = `${this.path} cannot be read (${error instanceof Error ? error.message : String(error)})`;
      return undefined;
    }
    try {
      return FileLabels.parse(text);
    } catch (error) {
      this.unreadable = `${this.path} is not valid (${error instanceof Error ? error.message : String(error)}); fix or remove it`;
      return undefined;
    }
  }
}
