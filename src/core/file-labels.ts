import { isTrustLevel, lessTrusted, type TrustLevel } from "./trust-levels.js";

/**
 * What the guard knows about files written while a turn was tainted: such a file holds content
 * that taint produced, so reading it back later brings that taint back. Keyed by absolute path.
 * A label only ever gets less trusted, except that a whole-file rewrite at `trusted` removes it.
 */
export interface FileLabel {
  readonly level: TrustLevel;
  readonly sessionId: string;
  readonly tool: string;
  readonly at: string;
}

export const FILE_LABELS_VERSION = 1;

export class FileLabelFormatError extends Error {
  constructor(detail: string) {
    super(`file labels: ${detail}`);
    this.name = "FileLabelFormatError";
  }
}

export class FileLabels {
  private readonly labels = new Map<string, FileLabel>();

  get(path: string): FileLabel | undefined {
    return this.labels.get(path);
  }

  /** Records a tainted write; true when the stored label changed. */
  mark(path: string, label: FileLabel): boolean {
    const current = this.labels.get(path);
    if (current !== undefined && !lessTrusted(label.level, current.level)) return false;
    this.labels.set(path, label);
    return true;
  }

  /** A whole-file rewrite from a trusted turn: the old content, and its label, are gone. */
  clear(path: string): boolean {
    return this.labels.delete(path);
  }

  get size(): number {
    return this.labels.size;
  }

  /** Every label, by path. */
  entries(): [string, FileLabel][] {
    return [...this.labels].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  serialize(): string {
    const files: Record<string, FileLabel> = Object.create(null) as Record<string, FileLabel>;
    for (const [path, label] of this.entries()) files[path] = label;
    return `${JSON.stringify({ version: FILE_LABELS_VERSION, files }, null, 2)}\n`;
  }

  /** Parses the file format; throws FileLabelFormatError on anything else (never a partial read). */
  static parse(text: string): FileLabels {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new FileLabelFormatError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new FileLabelFormatError("not an object");
    const { version, files } = raw as Record<string, unknown>;
    if (version !== FILE_LABELS_VERSION) throw new FileLabelFormatError(`version ${JSON.stringify(version)} is not ${FILE_LABELS_VERSION}`);
    if (files === null || typeof files !== "object" || Array.isArray(files)) throw new FileLabelFormatError("files is not an object");
    const labels = new FileLabels();
    for (const [path, value] of Object.entries(files as Record<string, unknown>)) {
      if (!path.startsWith("/")) throw new FileLabelFormatError(`${JSON.stringify(path)} is not an absolute path`);
      if (value === null || typeof value !== "object") throw new FileLabelFormatError(`${JSON.stringify(path)}: not an object`);
      const { level, sessionId, tool, at } = value as Record<string, unknown>;
      if (!isTrustLevel(level)) throw new FileLabelFormatError(`${JSON.stringify(path)}: level ${JSON.stringify(level)} is not a trust level`);
      if (typeof sessionId !== "string" || typeof tool !== "string" || typeof at !== "string") {
        throw new FileLabelFormatError(`${JSON.stringify(path)}: sessionId, tool and at must be strings`);
      }
      labels.labels.set(path, { level, sessionId, tool, at });
    }
    return labels;
  }
}
