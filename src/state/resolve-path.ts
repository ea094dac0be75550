import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import type { Dirent, Stats } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, posix, relative, resolve } from "node:path";
import { memoryFileMatcher, normalizeWorkspaceRelative } from "../core/memory-files.js";
import type { MemoryFileMatcher } from "../core/memory-files.js";

/** Linux's own limit on symlinks followed while resolving one path. */
const MAX_SYMLINK_HOPS = 40;
/** Bounds the alias check on a pathological workspace; past it the target counts as protected. */
const MAX_ENTRIES_SCANNED = 50_000;
const MAX_SCAN_DEPTH = 16;

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

/**
 * `path` as a name below the directory `base` (both absolute), or null when it is `base` itself or
 * not below it. Only a leading `..` component leaves: `..notes.md` is a file of `base`.
 */
function nameBelow(base: string, path: string): string | null {
  const rel = relative(base, path);
  return rel === "" || rel === ".." || rel.startsWith("../") ? null : rel;
}

function insideWorkspace(ws: Workspace, path: string): string | null {
  return nameBelow(ws.real, path);
}

function expandHome(rawPath: string): string {
  if (rawPath === "~") return homedir();
  if (rawPath.startsWith("~/")) return `${homedir()}${rawPath.slice(1)}`;
  return rawPath;
}

interface Reading {
  readonly ws: Workspace;
  /** Where the write lands: the kernel's reading first, then the lexical one if it differs. */
  readonly candidates: readonly string[];
  /** The workspace-relative name the path gives, before any symlink is followed. */
  readonly named: readonly string[];
}

/**
 * Both readings of a tool's path: the kernel's (symlinks before `..` are followed first) and the
 * lexical one most tools apply (`path.resolve` first). A write counts as aimed wherever either lands.
 */
function readPath(workspaceDir: string, rawPath: string): Reading {
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
  const named = new Set<string>();
  for (const base of [resolve(workspaceDir), ws.real]) {
    const rel = nameBelow(base, resolve(base, expanded));
    if (rel !== null) named.add(rel);
  }
  return { ws, candidates: kernel === lexical ? [kernel] : [kernel, lexical], named: [...named] };
}

/** The candidate as a name under `realDir`, which the workspace reaches as `relDir` through a symlink. */
function nameUnder(realDir: string, relDir: string, candidate: string): string | null {
  const rel = nameBelow(realDir, candidate);
  return rel === null ? null : `${relDir}/${rel}`;
}

/**
 * A file outside the protected names can still be a memory file: the workspace may reach it
 * through a symlink (`memory/` linked to a synced folder, `SOUL.md` linked to a dotfile, a note
 * linked to `docs/x.md`), or it may be a hard link to one. Walks the directories the patterns
 * name (not `.provenance/`, matched by name alone), reading directory entries only; a symlink
 * is resolved, a regular file is compared by inode only when the candidate has several links.
 */
function protectedAlias(ws: Workspace, matcher: MemoryFileMatcher, candidate: string): ProtectedTarget | "unknown" | null {
  let hardLinked: Stats | null = null;
  try {
    const st = statSync(candidate);
    if (st.isFile() && st.nlink > 1) hardLinked = st;
  } catch {
    // Not there (yet): only a symlink can lead to it.
  }
  let scanned = 0;
  const visit = (absDir: string, relDir: string, recursive: boolean, depth: number): ProtectedTarget | "unknown" | null => {
    let realDir: string;
    let entries: Dirent[];
    try {
      realDir = realpathSync.native(absDir);
      entries = readdirSync(absDir, { withFileTypes: true });
    } catch {
      return null;
    }
    if (realDir !== absDir && relDir !== "") {
      const name = nameUnder(realDir, relDir, candidate);
      if (name !== null && matcher.matches(name)) return { resolvedPath: candidate, relativePath: name };
    }
    for (const entry of entries) {
      scanned += 1;
      if (scanned > MAX_ENTRIES_SCANNED) return "unknown";
      const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
      const abs = `${absDir}/${entry.name}`;
      if (relDir === "" && rel === ".provenance") continue;
      let isDir = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        if (matcher.matches(rel) && aliasTarget(abs, ws) === candidate) return { resolvedPath: candidate, relativePath: rel };
        try {
          isDir = statSync(abs).isDirectory();
        } catch {
          isDir = false;
        }
      } else if (hardLinked !== null && entry.isFile() && matcher.matches(rel)) {
        try {
          const st = lstatSync(abs);
          if (st.dev === hardLinked.dev && st.ino === hardLinked.ino) return { resolvedPath: abs, relativePath: rel };
        } catch {
          // Gone meanwhile.
        }
      }
      if (recursive && isDir && depth < MAX_SCAN_DEPTH) {
        const found = visit(abs, rel, true, depth + 1);
        if (found !== null) return found;
      }
    }
    return null;
  };
  for (const root of matcher.roots) {
    if (root.dir === ".provenance") continue;
    const found = visit(root.dir === "" ? ws.real : `${ws.real}/${root.dir}`, root.dir, root.recursive, 0);
    if (found !== null) return found;
  }
  return null;
}

/** Where a protected symlink leads; a broken one (a loop, no permission) leads nowhere a write could land. */
function aliasTarget(abs: string, ws: Workspace): string | null {
  try {
    return canonicalize(abs, "/", abs, ws);
  } catch {
    return null;
  }
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
  const { ws, candidates, named } = readPath(workspaceDir, rawPath);
  const [landing = ws.real] = candidates;
  for (const candidate of candidates) {
    const rel = insideWorkspace(ws, candidate);
    if (rel !== null && matcher.matches(rel)) return { resolvedPath: candidate, relativePath: rel };
  }
  for (const name of named) {
    if (matcher.matches(name)) return { resolvedPath: landing, relativePath: normalizeWorkspaceRelative(name) ?? name };
  }
  for (const candidate of candidates) {
    const found = protectedAlias(ws, matcher, candidate);
    if (found === "unknown") return { resolvedPath: candidate, relativePath: insideWorkspace(ws, candidate) ?? candidate };
    if (found !== null) return found;
  }
  return null;
}

/** The canonical absolute path a tool path resolves to, by the kernel's reading (for committing a staged write). */
export function resolveToolPath(workspaceDir: string, rawPath: string): string {
  const { candidates } = readPath(workspaceDir, rawPath);
  const kernel = candidates[0];
  if (kernel === undefined) throw new PathResolutionError(rawPath, "EINVAL", "no candidate path");
  return kernel;
}
