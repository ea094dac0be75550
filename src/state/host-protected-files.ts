import { resolve } from "node:path";
import type { HostCatalogue } from "../core/host-catalogue.js";
import { PathResolutionError, protectedMemoryTarget } from "./resolve-path.js";
import { WorkspaceMemoryFiles, type MemoryWriteRequest } from "./workspace-memory-files.js";

/**
 * The files a host reads back as instructions: the workspace's memory files (the defaults, the
 * host's patterns and the owner's `memoryFiles`), and the host's files under the user's home
 * (Claude Code's `~/.claude/**`). Writes to either are staged in the workspace's staging area.
 */
export class HostProtectedFiles {
  private readonly workspace: WorkspaceMemoryFiles;

  constructor(
    readonly workspaceDir: string,
    private readonly catalogue: HostCatalogue,
    private readonly home: string,
    ownerPatterns: readonly string[] = [],
  ) {
    this.workspace = new WorkspaceMemoryFiles(workspaceDir, [...catalogue.protectedPatterns, ...ownerPatterns]);
  }

  protectedTarget(rawPath: string): { relativePath: string; resolvedPath: string } | null {
    const inWorkspace = this.workspace.protectedTarget(rawPath);
    if (inWorkspace !== null || this.catalogue.homeProtectedPatterns.length === 0) return inWorkspace;
    try {
      const hit = protectedMemoryTarget(this.home, rawPath, this.catalogue.homeProtectedPatterns);
      return hit === null ? null : { relativePath: `~/${hit.relativePath}`, resolvedPath: hit.resolvedPath };
    } catch (error) {
      if (error instanceof PathResolutionError) return { relativePath: rawPath, resolvedPath: resolve(this.home, rawPath) };
      throw error;
    }
  }

  stage(request: MemoryWriteRequest): { id: string; location: string } {
    return this.workspace.stage(request);
  }
}
