import { readdirSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import picomatch from "picomatch";
import { toPolicyPath } from "./project-path.js";

/** Directories a project glob never descends into: version control, dependencies, signatures. */
const SKIPPED_DIRS = new Set([".git", "node_modules", ".sig"]);

/**
 * sig's file arguments: a pattern with `*` or `{` is a glob over the project (dot files excluded),
 * anything else a path relative to the project root. Returns absolute paths, de-duplicated, in
 * order. Only the glob's static base is walked, and symlinked directories are not followed.
 */
export function expandFileArguments(projectRoot: string, patterns: readonly string[], exclude: readonly string[] = []): string[] {
  const out = new Set<string>();
  const excluded = exclude.length > 0 ? picomatch([...exclude], { dot: false }) : undefined;
  for (const pattern of patterns) {
    if (!pattern.includes("*") && !pattern.includes("{")) {
      out.add(resolve(projectRoot, pattern));
      continue;
    }
    const isMatch = picomatch(pattern, { dot: false });
    const base = picomatch.scan(pattern).base;
    const start = resolve(projectRoot, base);
    const matched: string[] = [];
    walk(start, (file) => {
      const rel = toPolicyPath(relative(projectRoot, file), sep);
      if (isMatch(rel) && !(excluded?.(rel) ?? false)) matched.push(file);
    });
    for (const file of matched.sort()) out.add(file);
  }
  return [...out];
}

function walk(dir: string, visit: (file: string) => void): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) walk(full, visit);
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      visit(full);
    }
  }
}
