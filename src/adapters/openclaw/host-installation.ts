import { readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { realPathOrNull } from "../../state/file-kind.js";

/** How many directories above the program are looked at (OpenClaw's own search goes as far). */
const MAX_DEPTH = 12;

/**
 * Where the running OpenClaw is installed: the nearest directory above the program the process was
 * started with (`process.argv[1]`) whose package.json is named `openclaw`, found as OpenClaw finds
 * its own root (its bundled skills and docs, which its system prompt tells the model to read, are
 * there). The directory as reached and the one it leads to through links are both returned (a
 * pnpm link, a global bin link), so a path read either way matches. Empty when none is found.
 */
export function openclawInstallations(program: string | undefined = process.argv[1]): string[] {
  if (program === undefined || program === "") return [];
  const found = new Set<string>();
  for (const start of [resolve(program), realPathOrNull(program)]) {
    if (start === null) continue;
    const root = packageRoot(dirname(start));
    if (root === null) continue;
    found.add(root);
    const real = realPathOrNull(root);
    if (real !== null) found.add(real);
  }
  return [...found];
}

function packageRoot(from: string): string | null {
  let dir = from;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    if (packageName(dir) === "openclaw") return dir;
    // A package never sits above the node_modules that holds it.
    if (basename(dir) === "node_modules") return null;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  return null;
}

function packageName(dir: string): string | null {
  try {
    const name = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown } | null)?.name;
    return typeof name === "string" ? name : null;
  } catch {
    return null;
  }
}
