import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import type { Stats } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, posix, relative, resolve, sep } from "node:path";
import { memoryFileMatcher } from "../core/memory-files.js";
import type { MemoryFileMatcher } from "../core/memory-files.js";

/** Linux's own limit on symlinks followed while resolving one path. */
const MAX_SYMLINK_HOPS = 40;
/** Bounds the hard-link check on a pathological workspace; past it the target counts as protected. */
const MAX_ENTRIES_SCANNED = 20_000;

export interface ProtectedTarget {
  /** The canonical absolute path the write would land on. */
  readonly resolvedPath: string;
  /** That path relative to the workspace's canonical path, `/`-separated. */
  readonly relativePath: string;
}

export class PathResolutionError extends Error {
  constructor(readonly rawPath: string, readonly code: string, detail: string) {
    super(`cannot resolve ${JSON.stringify(rawPath)}: ${detail}`);
    this.name = "PathResolutionError";
  }
}

interface Workspace {
  readonly real: string;
  readonly dev: number;
  readonly ino: number;
}

function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}

function openWorkspace(workspaceDir: string): Workspace {
  let real: string;
  try {
    real = realpathSync.native(resolve(workspaceDir));
  } catch (error) {
    const code = errnoCode(error) ?? "EUNKNOWN";
    throw new PathResolutionError(workspaceDir, code, `the workspace cannot be opened (${code})`);
  }
  const st = statSync(real);
  if (!st.isDirectory()) throw new PathResolutionError(workspaceDir, "ENOTDIR", "the workspace is not a directory");
  return { real, dev: st.dev, ino: st.ino };
}

/**
 * Walks `absolute` component by component the way the kernel does: a symlink is replaced by its
 * target (also a dangling one, since opening it with O_CREAT creates the target), `..` climbs from
 * the real directory reached so far, and a component that does not exist is kept as written (a
 * tool that creates parent directories would create it). Reaching the workspace by another name
 * (a different case on a case-insensitive file system, a bind mount) snaps to its canonical path.
 */
function canonicalize(rawPath: string, start: string, path: string, ws: Workspace): string {
  const pending = path.split("/").filter((c) => c !== "");
  let current = start;
  let hops = 0;
  for (let name = pending.shift(); name !== undefined; name = pending.shift()) {
    if (name === ".") continue;
    if (name === "..") {
      current = dirname(current);
      continue;
    }
    const next = current === "/" ? `/${name}` : `${current}/${name}`;
    let st: Stats;
    try {
      st = lstatSync(next);
    } catch (error) {
      const code = errnoCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") {
        throw new PathResolutionError(rawPath, code ?? "EUNKNOWN", `lstat ${JSON.stringify(next)} failed (${code ?? String(error)})`);
      }
      current = next;
      continue;
    }
    if (st.isSymbolicLink()) {
      hops += 1;
      if (hops > MAX_SYMLINK_HOPS) throw new PathResolutionError(rawPath, "ELOOP", "too many levels of symbolic links");
      const target = readlinkSync(next);
      pending.unshift(...target.split("/").filter((c) => c !== ""));
      if (target.startsWith("/")) current = "/";
      continue;
    }
    current = st.dev === ws.dev && st.ino === ws.ino ? ws.real : next;
  }
  return current;
}

function insideWorkspace(ws: Workspace, path: string): string | null {
  if (path === ws.real) return null;
  const rel = relative(ws.real, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
  return sep === "/" ? rel : rel.split(sep).join("/");
}

function expandHome(rawPath: string): string {
  if (rawPath === "~") return homedir();
  if (rawPath.startsWith("~/")) return `${homedir()}${rawPath.slice(1)}`;
  return rawPath;
}

/**
 * Both readings of a tool's path: the kernel's (symlinks before `..` are followed first) and the
 * lexical one most tools apply (`path.resolve` first). A write counts as aimed wherever either lands.
 */
function candidatePaths(workspaceDir: string, rawPath: string): { ws: Workspace; candidates: string[] } {
  const ws = openWorkspace(workspaceDir);
  const expanded = expandHome(rawPath);
  // A relative path starts from the workspace's real directory, exactly as the kernel starts from
  // the tool's working directory; the walk then need not re-resolve the workspace's own ancestors.
  const kernel = isAbsolute(expanded) ? canonicalize(rawPath, "/", expanded, ws) : canonicalize(rawPath, ws.real, expanded, ws);
  const normalized = posix.normalize(expanded);
  const lexical =
    isAbsolute(expanded) || normalized === ".." || normalized.startsWith("../")
      ? canonicalize(rawPath, "/", resolve(workspaceDir, expanded), ws)
      : canonicalize(rawPath, ws.real, normalized, ws);
  return { ws, candidates: kernel === lexical ? [kernel] : [kernel, lexical] };
}

/**
 * A hard link shares the memory file's content: writing `notes.txt` linked to SOUL.md rewrites
 * SOUL.md. Only called for a file with more than one link, so the walk is rare.
 */
function protectedFileWithInode(ws: Workspace, matcher: MemoryFileMatcher, dev: number, ino: number): ProtectedTarget | "unknown" | null {
  let scanned = 0;
  const visit = (relDir: string, recursive: boolean, depth: number): ProtectedTarget | "unknown" | null => {
    const absDir = relDir === "" ? ws.real : `${ws.real}/${relDir}`;
    let entries: string[];
    try {
      entries = readdirSync(absDir);
    } catch {
      return null;
    }
    for (const entry of entries) {
      scanned += 1;
      if (scanned > MAX_ENTRIES_SCANNED) return "unknown";
      const rel = relDir === "" ? entry : `${relDir}/${entry}`;
      let st: Stats;
      try {
        st = lstatSync(`${absDir}/${entry}`);
      } catch {
        continue;
      }
      if (st.isFile() && st.dev === dev && st.ino === ino && matcher.matches(rel)) {
        return { resolvedPath: `${absDir}/${entry}`, relativePath: rel };
      }
      if (recursive && st.isDirectory() && depth < 32) {
        const found = visit(rel, true, depth + 1);
        if (found !== null) return found;
      }
    }
    return null;
  };
  for (const root of matcher.roots) {
    const found = visit(root.dir, root.recursive, 0);
    if (found !== null) return found;
  }
  return null;
}

const matcherCache = new Map<string, MemoryFileMatcher>();

function cachedMatcher(extraPatterns: readonly string[]): MemoryFileMatcher {
  const key = JSON.stringify(extraPatterns);
  let matcher = matcherCache.get(key);
  if (matcher === undefined) {
    matcher = memoryFileMatcher(extraPatterns);
    matcherCache.set(key, matcher);
  }
  return matcher;
}

/**
 * Where a Write/Edit tool's `path`/`file_path` would land, if that is a protected memory file of
 * the workspace; null when it is not. Relative paths are taken from the workspace, `~/` from the
 * home directory. Throws `PathResolutionError` when the path cannot be resolved for a reason other
 * than not existing (a symlink loop, permission denied): the caller should treat that as protected.
 */
export function protectedMemoryTarget(
  workspaceDir: string,
  rawPath: string,
  extraPatterns: readonly string[] = [],
): ProtectedTarget | null {
  if (typeof rawPath !== "string" || rawPath === "" || rawPath.includes("\0")) return null;
  const matcher = cachedMatcher(extraPatterns);
  const { ws, candidates } = candidatePaths(workspaceDir, rawPath);
  for (const candidate of candidates) {
    const rel = insideWorkspace(ws, candidate);
    if (rel !== null && matcher.matches(rel)) return { resolvedPath: candidate, relativePath: rel };
  }
  for (const candidate of candidates) {
    let st: Stats;
    try {
      st = statSync(candidate);
    } catch {
      continue;
    }
    if (!st.isFile() || st.nlink < 2) continue;
    const found = protectedFileWithInode(ws, matcher, st.dev, st.ino);
    if (found === "unknown") {
      return { resolvedPath: candidate, relativePath: insideWorkspace(ws, candidate) ?? candidate };
    }
    if (found !== null) return found;
  }
  return null;
}

/** The canonical absolute path a tool path resolves to, by the kernel's reading (for committing a staged write). */
export function resolveToolPath(workspaceDir: string, rawPath: string): string {
  const { candidates } = candidatePaths(workspaceDir, rawPath);
  const kernel = candidates[0];
  if (kernel === undefined) throw new PathResolutionError(rawPath, "EINVAL", "no candidate path");
  return kernel;
}
