import { relative, resolve } from "node:path";
import type { TrustLevel } from "../core/trust-levels.js";
import { BlockedWriteStore, type StagedWrite } from "./blocked-write-store.js";
import { PathResolutionError, protectedMemoryTarget } from "./resolve-path.js";
import type { TextEdit } from "./text-edit.js";

export interface MemoryWriteRequest {
  readonly sessionId: string;
  readonly tool: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly targetPath: string;
  readonly resolvedPath: string;
  readonly taint: TrustLevel;
  readonly reason: string;
  readonly now: Date;
}

/**
 * The workspace's protected memory files and the staging area for writes to them: what the guard
 * needs to stage a tainted write instead of running it.
 */
export class WorkspaceMemoryFiles {
  private readonly store: BlockedWriteStore;

  constructor(readonly workspaceDir: string, private readonly extraPatterns: readonly string[] = []) {
    this.store = new BlockedWriteStore(workspaceDir);
  }

  /**
   * The protected file a raw tool path would land on, or null. A path that cannot be resolved
   * (a symlink loop, no permission) counts as protected: when in doubt, stage.
   */
  protectedTarget(rawPath: string): { relativePath: string; resolvedPath: string } | null {
    try {
      return protectedMemoryTarget(this.workspaceDir, rawPath, this.extraPatterns);
    } catch (error) {
      if (error instanceof PathResolutionError) return { relativePath: rawPath, resolvedPath: resolve(this.workspaceDir, rawPath) };
      throw error;
    }
  }

  /** Stages a `write` (its content) or an `edit` (its edits and the content they produce). */
  stage(request: MemoryWriteRequest): { id: string; location: string } {
    const common = {
      sessionId: request.sessionId,
      tool: request.tool,
      targetPath: request.targetPath,
      resolvedPath: request.resolvedPath,
      taint: request.taint,
      reason: request.reason,
      now: request.now,
    };
    const edits = editsOf(request.params);
    const staged: StagedWrite =
      edits === null
        ? this.store.stage({ ...common, operation: "write", content: contentOf(request.params) })
        : this.store.stage({ ...common, operation: "edit", edits });
    return { id: staged.id, location: relative(this.workspaceDir, this.store.dir) + "/" };
  }
}

/** The full content of a write; a write whose content is not a string cannot be staged (the guard then refuses it). */
function contentOf(params: Readonly<Record<string, unknown>>): string {
  for (const key of ["content", "text", "contents"]) {
    const value = params[key];
    if (typeof value === "string") return value;
  }
  throw new Error("the write has no string content to stage");
}

/** An edit's changes in the shapes edit tools use: `edits: [...]`, `oldText/newText`, `old_string/new_string`. */
function editsOf(params: Readonly<Record<string, unknown>>): TextEdit[] | null {
  if (Array.isArray(params.edits)) {
    return params.edits.map((e: unknown) => {
      const edit = (e ?? {}) as Record<string, unknown>;
      const replaceAll = edit.replaceAll === true || edit.replace_all === true;
      return { oldText: String(edit.oldText ?? edit.old_string ?? ""), newText: String(edit.newText ?? edit.new_string ?? ""), ...(replaceAll ? { replaceAll } : {}) };
    });
  }
  const oldText = params.oldText ?? params.old_string;
  const newText = params.newText ?? params.new_string;
  if (typeof oldText === "string" && typeof newText === "string") {
    return [{ oldText, newText, ...(params.replaceAll === true || params.replace_all === true ? { replaceAll: true } : {}) }];
  }
  return null;
}
