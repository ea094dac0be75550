import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { toPolicyPath } from "./project-path.js";

export type ResolvedTarget =
  | { readonly kind: "inside"; readonly path: string; readonly real: string }
  | { readonly kind: "outside"; readonly real: string }
  | { readonly kind: "unresolvable"; readonly reason: string };

export interface RealPathResolverOptions {
  /** Whether `A` and `a` name the same file; probed on the project root when not given. */
  readonly caseInsensitive?: boolean;
  readonly homeDir?: string;
}

/** Symlinks followed plus missing components walked; a path needing more is refused, not guessed. */
const MAX_RESOLUTION_STEPS = 256;

/**
 * Resolves where a tool would really write, the way the kernel would: `..` after a symlinked
 * directory goes to the link target's parent, a dangling symlink points at its target, `~` and
 * `file://` are expanded. The result is a project-relative `/` path, or where it lands outside.
 */
export class RealPathResolver {
  readonly realRoot: string;
  readonly caseInsensitive: boolean;
  readonly #home: string;

  constructor(projectRoot: string, options: RealPathResolverOptions = {}) {
    this.realRoot = realpathSync.native(projectRoot);
    this.caseInsensitive = options.caseInsensitive ?? detectCaseInsensitive(this.realRoot);
    this.#home = options.homeDir ?? homedir();
  }

  resolve(target: string): ResolvedTarget {
    if (target.includes("\0")) return { kind: "unresolvable", reason: "path contains a NUL byte" };
    let path = target;
    if (path.startsWith("file://")) {
      try {
        path = fileURLToPath(path);
      } catch {
        return { kind: "unresolvable", reason: "malformed file URL" };
      }
    } else if (path === "~" || path.startsWith("~/")) {
      path = this.#home + path.slice(1);
    }
    if (path === "") return { kind: "unresolvable", reason: "empty path" };
    const absolute = isAbsolute(path) ? path : this.realRoot + sep + path;
    let real: string;
    try {
      real = resolveReal(absolute, { steps: MAX_RESOLUTION_STEPS });
    } catch (error) {
      return { kind: "unresolvable", reason: (error as Error).message };
    }
    const rel = this.#relativeInside(real);
    return rel === undefined ? { kind: "outside", real } : { kind: "inside", path: toPolicyPath(rel, sep), real };
  }

  #relativeInside(real: string): string | undefined {
    const within = (root: string, path: string): string | undefined => {
      const rel = relative(root, path);
      return rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : rel;
    };
    const exact = within(this.realRoot, real);
    if (exact !== undefined || !this.caseInsensitive) return exact;
    // The file system ignores case, so a differently cased root is still the root; matching folds case too.
    return within(this.realRoot.toLowerCase(), real.toLowerCase());
  }

  /**
   * For an existing file with more than one hard link: which of `candidates()` (project paths, listed only when needed) is
   * the same file. A hard link is another name for the file that no path rule can see through.
   */
  findHardLinkAlias(real: string, candidates: () => Iterable<string>): string | undefined {
    let target;
    try {
      target = statSync(real);
    } catch {
      return undefined;
    }
    if (!target.isFile() || target.nlink < 2) return undefined;
    for (const candidate of candidates()) {
      try {
        const s = statSync(join(this.realRoot, candidate));
        if (s.ino === target.ino && s.dev === target.dev) return candidate;
      } catch {
        // A candidate that does not exist cannot be an alias.
      }
    }
    return undefined;
  }
}

function resolveReal(path: string, budget: { steps: number }): string {
  if (--budget.steps < 0) throw new Error("too many symbolic links or path components");
  try {
    return realpathSync.native(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw new Error(`cannot resolve path (${code ?? "error"})`);
  }
  let link: string | undefined;
  try {
    if (lstatSync(path).isSymbolicLink()) link = readlinkSync(path);
  } catch {
    link = undefined;
  }
  if (link !== undefined) return resolveReal(isAbsolute(link) ? link : dirname(path) + sep + link, budget);
  const parent = dirname(path);
  if (parent === path) return path;
  const base = basename(path);
  const realParent = resolveReal(parent, budget);
  if (base === "..") return dirname(realParent);
  if (base === "." || base === "") return realParent;
  return join(realParent, base);
}

function detectCaseInsensitive(realRoot: string): boolean {
  const swapped = [...realRoot].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("");
  if (swapped === realRoot) return process.platform === "darwin" || process.platform === "win32";
  try {
    const a = statSync(realRoot);
    const b = statSync(swapped);
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}
