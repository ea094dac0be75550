import path from "node:path";
import type { PlatformPath } from "node:path";

export class PathEscapeError extends Error {
  constructor(readonly requested: string) {
    super(`Path escapes project root: ${requested}`);
    this.name = "PathEscapeError";
  }
}

/**
 * sig's containment rule, lexical: the path is resolved against the project root and must stay
 * inside it. The result uses `/` on every platform, because policy patterns and `.sig/` paths do.
 * Symlinks are not followed here; the mutation gate resolves them separately (real-path.ts).
 */
export function resolveContainedPath(projectRoot: string, filePath: string, platform: PlatformPath = path): string {
  if (filePath.includes("\0")) throw new PathEscapeError(filePath);
  const absolute = platform.resolve(projectRoot, filePath);
  const rel = platform.relative(projectRoot, absolute);
  if (rel === "" || rel === ".." || rel.startsWith(`..${platform.sep}`) || platform.isAbsolute(rel)) {
    throw new PathEscapeError(filePath);
  }
  return toPolicyPath(rel, platform.sep);
}

/** Platform-relative path to the `/`-separated form that policies and `.sig/` paths use. */
export function toPolicyPath(relativePath: string, separator: string): string {
  return separator === "/" ? relativePath : relativePath.split(separator).join("/");
}
