import picomatch from "picomatch";
import { posix } from "node:path";

/**
 * Files the agent reads back into its own system prompt on every later session. Tainted content
 * written there would outlive the session that was tainted, so writes to them are staged instead.
 * `memory/**` rather than the seed's `memory/*.md`: a daily note one directory deeper is loaded
 * just the same by memory tools, and protecting it costs only a staged write.
 */
export const DEFAULT_MEMORY_FILE_PATTERNS: readonly string[] = Object.freeze([
  "MEMORY.md",
  "AGENTS.md",
  "SOUL.md",
  "HEARTBEAT.md",
  "TOOLS.md",
  "IDENTITY.md",
  "USER.md",
  "BOOTSTRAP.md",
  "memory/**/*.md",
]);

/**
 * provenant's own state: a tainted write to `watermarks.json` could make a session trusted again
 * on the next restart, so it is protected like a memory file.
 */
export const STATE_DIR_PATTERNS: readonly string[] = Object.freeze([".provenance/**"]);

export const DEFAULT_PROTECTED_PATTERNS: readonly string[] = Object.freeze([
  ...DEFAULT_MEMORY_FILE_PATTERNS,
  ...STATE_DIR_PATTERNS,
]);

export class MemoryPatternError extends Error {
  constructor(readonly pattern: unknown, detail: string) {
    super(`protected file pattern ${JSON.stringify(pattern)}: ${detail}`);
    this.name = "MemoryPatternError";
  }
}

export interface MemoryFileMatcher {
  /** The patterns in force, defaults first. */
  readonly patterns: readonly string[];
  /** True when a workspace-relative path names a protected file (see `normalizeWorkspaceRelative`). */
  matches(relativePath: string): boolean;
  /**
   * Directories (workspace-relative, "" for the root) under which every protected file lives, and
   * whether files can sit below them at any depth; a hard-link check walks only these.
   */
  readonly roots: readonly ProtectedRoot[];
}

export interface ProtectedRoot {
  readonly dir: string;
  readonly recursive: boolean;
}

function rootsOf(patterns: readonly string[]): ProtectedRoot[] {
  const byDir = new Map<string, boolean>();
  for (const pattern of patterns) {
    const scan = picomatch.scan(pattern);
    const dir = scan.isGlob ? scan.base : posix.dirname(scan.base) === "." ? "" : posix.dirname(scan.base);
    byDir.set(dir, (byDir.get(dir) ?? false) || scan.isGlob);
  }
  return [...byDir].map(([dir, recursive]) => ({ dir, recursive }));
}

/**
 * Lexically normalizes a workspace-relative path: `./`, `a/..`, repeated and trailing slashes and a
 * trailing `/.` go. Returns null for a path that leaves the workspace or is absolute: the caller
 * resolves against the file system first, so such a path is not inside the workspace.
 */
export function normalizeWorkspaceRelative(relativePath: string): string | null {
  if (relativePath === "" || relativePath.includes("\0") || relativePath.startsWith("/")) return null;
  let normalized = posix.normalize(relativePath);
  while (normalized.length > 1 && normalized.endsWith("/")) normalized = normalized.slice(0, -1);
  if (normalized === "." || normalized === ".." || normalized.startsWith("../")) return null;
  return normalized;
}

function validatePattern(pattern: unknown): string {
  if (typeof pattern !== "string" || pattern.trim() === "") throw new MemoryPatternError(pattern, "must be a non-empty string");
  if (pattern.includes("\0")) throw new MemoryPatternError(pattern, "must not contain a NUL byte");
  if (pattern.startsWith("/")) throw new MemoryPatternError(pattern, "must be relative to the workspace, not absolute");
  if (pattern.split("/").includes("..")) throw new MemoryPatternError(pattern, "must not contain '..'");
  if (pattern.startsWith("!")) throw new MemoryPatternError(pattern, "negation would unprotect files; list only what to protect");
  return pattern.startsWith("./") ? pattern.slice(2) : pattern;
}

/**
 * Names are compared case-insensitively (ASCII folding only) on every file system: on a
 * case-insensitive one `soul.md` is SOUL.md, and on a case-sensitive one protecting it costs a
 * staged write. Unicode look-alikes (`ЅOUL.md` with a Cyrillic Ѕ, fullwidth letters, `ſ`) are other
 * files and do not match.
 */
export function memoryFileMatcher(extraPatterns: readonly string[] = []): MemoryFileMatcher {
  const patterns = [...DEFAULT_PROTECTED_PATTERNS, ...extraPatterns.map(validatePattern)];
  const test = picomatch(patterns, { nocase: true, dot: true });
  return {
    patterns,
    roots: rootsOf(patterns),
    matches(relativePath: string): boolean {
      const normalized = normalizeWorkspaceRelative(relativePath);
      return normalized !== null && test(normalized);
    },
  };
}
