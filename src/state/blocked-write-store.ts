import { createHash, randomBytes } from "node:crypto";
import { readFileSync, readdirSync, statSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { isTrustLevel, parseTrustLevel } from "../core/trust-levels.js";
import type { TrustLevel } from "../core/trust-levels.js";
import { fsyncDir, writeFileAtomic } from "./atomic-file.js";
import { ensureDirDurable } from "./durable-dir.js";
import { WorkspaceFileLabelStore } from "./file-label-store.js";
import { resolveToolPath } from "./resolve-path.js";
import { removeStaleTempFiles } from "./stale-temp-files.js";
import { applyEdits } from "./text-edit.js";
import type { TextEdit } from "./text-edit.js";
import { isIsoTime } from "./watermark-file.js";
import { isRecord } from "../core/json-record.js";

export type { TextEdit } from "./text-edit.js";

/** A write to a protected memory file that taint kept from running, kept for the owner. */
export interface StagedWrite {
  readonly version: 1;
  readonly id: string;
  readonly sessionId: string;
  readonly tool: string;
  readonly operation: "write" | "edit";
  /** The path exactly as the tool call gave it. */
  readonly targetPath: string;
  /** The canonical absolute path it resolved to when staged. */
  readonly resolvedPath: string;
  /** The full content the file would have had. */
  readonly content: string;
  /** For an edit: the edits, in order. */
  readonly edits: readonly TextEdit[] | null;
  /** sha256 of the file when staged (null: it did not exist); an edit commits only onto that. */
  readonly baseSha256: string | null;
  readonly taint: TrustLevel;
  readonly reason: string;
  readonly createdAt: string;
}

interface StageCommon {
  readonly sessionId: string;
  readonly tool: string;
  readonly targetPath: string;
  readonly resolvedPath: string;
  readonly taint: TrustLevel;
  readonly reason: string;
  readonly now: Date;
}

export type StageInput =
  | (StageCommon & { readonly operation: "write"; readonly content: string })
  | (StageCommon & { readonly operation: "edit"; readonly edits: readonly TextEdit[] });

export type BlockedWriteErrorCode =
  | "invalid-id"
  | "not-found"
  | "ambiguous-id"
  | "unreadable"
  | "target-changed"
  | "target-moved"
  | "invalid-input";

export class BlockedWriteError extends Error {
  constructor(readonly code: BlockedWriteErrorCode, message: string) {
    super(message);
    this.name = "BlockedWriteError";
  }
}

export interface CommitResult {
  readonly staged: StagedWrite;
  /** True when the target already held the staged content (an earlier commit was interrupted). */
  readonly alreadyApplied: boolean;
  /** The file's labels that went with a committed write (paths as the labels kept them). */
  readonly labelsCleared: readonly string[];
}

export interface UnreadableStagedWrite {
  readonly file: string;
  readonly error: string;
}

/** 128 random bits: not guessable, and nothing in it can name another path. */
const ID = /^[0-9a-f]{32}$/;
const ID_PREFIX = /^[0-9a-f]{1,32}$/;
/** Short prefixes would let a typo commit the wrong write. */
export const MIN_ID_PREFIX = 6;

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

function readCurrent(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return null;
    throw error;
  }
}

function field<T>(doc: Record<string, unknown>, key: string, check: (v: unknown) => v is T, expected: string): T {
  const value = doc[key];
  if (!check(value)) throw new Error(`${key}: expected ${expected}`);
  return value;
}

const isString = (v: unknown): v is string => typeof v === "string";
const isNonEmpty = (v: unknown): v is string => typeof v === "string" && v !== "";
const isSha = (v: unknown): v is string | null => v === null || (typeof v === "string" && /^[0-9a-f]{64}$/.test(v));
const isOperation = (v: unknown): v is "write" | "edit" => v === "write" || v === "edit";
const isIso = (v: unknown): v is string => typeof v === "string" && isIsoTime(v);
const isEdit = (v: unknown): v is TextEdit =>
  isRecord(v) && isString(v.oldText) && isString(v.newText) && (v.replaceAll === undefined || typeof v.replaceAll === "boolean");
const isEdits = (v: unknown): v is readonly TextEdit[] | null => v === null || (Array.isArray(v) && v.length > 0 && v.every(isEdit));

function parseStaged(json: string, expectedId: string): StagedWrite {
  const doc: unknown = JSON.parse(json);
  if (!isRecord(doc)) throw new Error("expected an object");
  if (doc.version !== 1) throw new Error(`version: expected 1, got ${JSON.stringify(doc.version)}`);
  const id = field(doc, "id", isString, "a string");
  if (id !== expectedId) throw new Error(`id ${JSON.stringify(id)} does not match its file name`);
  const operation = field(doc, "operation", isOperation, '"write" or "edit"');
  const edits = field(doc, "edits", isEdits, "null or a non-empty array of edits");
  if ((operation === "edit") !== (edits !== null)) throw new Error("edits: present exactly for an edit");
  return {
    version: 1,
    id,
    sessionId: field(doc, "sessionId", isString, "a string"),
    tool: field(doc, "tool", isString, "a string"),
    operation,
    targetPath: field(doc, "targetPath", isNonEmpty, "a non-empty string"),
    resolvedPath: field(doc, "resolvedPath", (v): v is string => isString(v) && v.startsWith("/"), "an absolute path"),
    content: field(doc, "content", isString, "a string"),
    edits,
    baseSha256: field(doc, "baseSha256", isSha, "null or a sha256 hex digest"),
    taint: field(doc, "taint", isTrustLevel, "a trust level"),
    reason: field(doc, "reason", isString, "a string"),
    createdAt: field(doc, "createdAt", isIso, "an ISO 8601 time"),
  };
}

function checkId(id: string): string {
  if (typeof id !== "string" || !ID.test(id)) {
    throw new BlockedWriteError("invalid-id", `invalid blocked-write id ${JSON.stringify(id)}: expected 32 lowercase hex digits`);
  }
  return id;
}

/**
 * `<workspace>/.provenance/blocked-writes/<id>.json`, one file per staged write, each written
 * atomically and durable before `stage` returns. Committing writes the target first and removes
 * the staged file only once the target is durable, so a crash at any point loses nothing.
 */
export class BlockedWriteStore {
  readonly dir: string;

  constructor(readonly workspaceDir: string) {
    this.dir = join(workspaceDir, ".provenance", "blocked-writes");
    removeStaleTempFiles(this.dir);
  }

  stage(input: StageInput): StagedWrite {
    for (const key of ["sessionId", "tool", "targetPath", "resolvedPath", "reason"] as const) {
      if (typeof input[key] !== "string") throw new BlockedWriteError("invalid-input", `${key} must be a string`);
    }
    if (input.targetPath === "") throw new BlockedWriteError("invalid-input", "targetPath must not be empty");
    if (!input.resolvedPath.startsWith("/")) throw new BlockedWriteError("invalid-input", "resolvedPath must be absolute");
    if (!(input.now instanceof Date) || Number.isNaN(input.now.getTime())) throw new BlockedWriteError("invalid-input", "now must be a valid Date");
    const taint = parseTrustLevel(input.taint, "taint");
    const current = readCurrent(input.resolvedPath);
    let content: string;
    let edits: readonly TextEdit[] | null = null;
    if (input.operation === "write") {
      if (typeof input.content !== "string") throw new BlockedWriteError("invalid-input", "content must be a string");
      content = input.content;
    } else if (input.operation === "edit") {
      if (!Array.isArray(input.edits)) throw new BlockedWriteError("invalid-input", "edits must be an array");
      if (current === null) throw new BlockedWriteError("invalid-input", `cannot edit ${input.targetPath}: the file does not exist`);
      edits = input.edits.map((e) => ({ oldText: e.oldText, newText: e.newText, ...(e.replaceAll === undefined ? {} : { replaceAll: e.replaceAll }) }));
      content = applyEdits(current.toString("utf8"), edits);
    } else {
      throw new BlockedWriteError("invalid-input", `operation must be "write" or "edit"`);
    }
    const staged: StagedWrite = {
      version: 1,
      id: randomBytes(16).toString("hex"),
      sessionId: input.sessionId,
      tool: input.tool,
      operation: input.operation,
      targetPath: input.targetPath,
      resolvedPath: input.resolvedPath,
      content,
      edits,
      baseSha256: current === null ? null : sha256(current),
      taint,
      reason: input.reason,
      createdAt: input.now.toISOString(),
    };
    ensureDirDurable(this.dir);
    writeFileAtomic(this.fileOf(staged.id), `${JSON.stringify(staged, null, 2)}\n`);
    return staged;
  }

  /** Staged writes, oldest first; files that do not parse are listed by `unreadable()`. */
  list(): StagedWrite[] {
    const writes: StagedWrite[] = [];
    for (const id of this.ids()) {
      try {
        writes.push(this.get(id));
      } catch {
        // Reported by unreadable().
      }
    }
    return writes.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  unreadable(): UnreadableStagedWrite[] {
    const bad: UnreadableStagedWrite[] = [];
    for (const id of this.ids()) {
      try {
        this.get(id);
      } catch (error) {
        bad.push({ file: `${id}.json`, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return bad;
  }

  get(id: string): StagedWrite {
    const file = this.fileOf(checkId(id));
    let json: string;
    try {
      json = readFileSync(file, "utf8");
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "ENOENT") {
        throw new BlockedWriteError("not-found", `no blocked write with id ${id}`);
      }
      throw error;
    }
    try {
      return parseStaged(json, id);
    } catch (error) {
      throw new BlockedWriteError("unreadable", `blocked write ${id} is unreadable: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The full id for a unique prefix of at least MIN_ID_PREFIX hex digits. */
  resolveId(prefix: string): string {
    if (typeof prefix !== "string" || !ID_PREFIX.test(prefix) || prefix.length < MIN_ID_PREFIX) {
      throw new BlockedWriteError(
        "invalid-id",
        `invalid blocked-write id ${JSON.stringify(prefix)}: expected ${MIN_ID_PREFIX} to 32 lowercase hex digits`,
      );
    }
    const matches = this.ids().filter((id) => id.startsWith(prefix));
    if (matches.length === 0) throw new BlockedWriteError("not-found", `no blocked write with id ${prefix}`);
    if (matches.length > 1) throw new BlockedWriteError("ambiguous-id", `id prefix ${prefix} matches ${matches.length} blocked writes; give more digits`);
    return matches[0] ?? prefix;
  }

  /**
   * Writes the staged content to its target. Refuses when the target's path now resolves elsewhere
   * (a symlink swapped in since) or, for an edit, when the file changed since staging; `force`
   * writes the staged content regardless.
   */
  commit(id: string, options: { readonly force?: boolean } = {}): CommitResult {
    const staged = this.get(id);
    const force = options.force === true;
    const now = resolveToolPath(this.workspaceDir, staged.resolvedPath);
    if (now !== staged.resolvedPath && !force) {
      throw new BlockedWriteError(
        "target-moved",
        `${staged.targetPath} was staged for ${staged.resolvedPath} but that path now leads to ${now}; review it, then commit with --force to write ${staged.resolvedPath} anyway`,
      );
    }
    const current = readCurrent(staged.resolvedPath);
    const currentSha = current === null ? null : sha256(current);
    const alreadyApplied = currentSha === sha256(staged.content);
    if (!alreadyApplied) {
      if (staged.operation === "edit" && currentSha !== staged.baseSha256 && !force) {
        throw new BlockedWriteError(
          "target-changed",
          `${staged.targetPath} changed since the edit was staged (${staged.createdAt}); review it, then commit with --force to overwrite it with the staged content`,
        );
      }
      ensureDirDurable(dirname(staged.resolvedPath), 0o755);
      writeFileAtomic(staged.resolvedPath, staged.content, this.modeFor(staged.resolvedPath));
    }
    // The owner reviewed the whole content of a write: the file's label, if an earlier tainted
    // write left one, no longer describes it. An edit keeps the rest of the file, and its label.
    const labelsCleared = staged.operation === "write" ? new WorkspaceFileLabelStore(this.workspaceDir).vouchFor(staged.resolvedPath) : [];
    this.remove(staged.id);
    return { staged, alreadyApplied, labelsCleared };
  }

  /** Deletes a staged write; returns it, or null when its file was unreadable (still deleted). */
  discard(id: string): StagedWrite | null {
    let staged: StagedWrite | null = null;
    try {
      staged = this.get(id);
    } catch (error) {
      if (!(error instanceof BlockedWriteError && error.code === "unreadable")) throw error;
    }
    this.remove(id);
    return staged;
  }

  private modeFor(path: string): number {
    try {
      return statSync(path).mode & 0o777;
    } catch {
      return 0o644;
    }
  }

  private remove(id: string): void {
    unlinkSync(this.fileOf(id));
    fsyncDir(this.dir);
  }

  private ids(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return names.filter((n) => n.endsWith(".json") && ID.test(n.slice(0, -5))).map((n) => n.slice(0, -5));
  }

  private fileOf(id: string): string {
    return join(this.dir, `${id}.json`);
  }
}
