import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve, sep } from "node:path";
import { PathResolutionError, resolveToolPath } from "../../state/resolve-path.js";

/** Deeper than any tool's arguments nest a path: past it the arguments are refused unread (fail safe). */
const MAX_DEPTH = 64;

/**
 * Whether a tool call's arguments name a path inside provenant's own state directory
 * (`<workspace>/.provenance`: the pending-approvals store, watermarks, pins, the ledger). A server
 * whose files include the workspace could otherwise write an answer to a held call, a console
 * heartbeat or a lower watermark once the owner let one of its write tools through (for some
 * minutes, say), and so approve what the owner never saw. Every string argument is read as a path
 * the way a file server would (absolute, `~/`, or relative to the proxy's directory, which is the
 * server's) and compared with the state directory as configured and as it resolves on disk, and
 * so is where the kernel would land with it, after the symbolic links on the way.
 * Returns the first such argument, or null.
 */
export class OwnStatePaths {
  private readonly roots: readonly string[];

  constructor(stateDir: string, private readonly cwd: string = process.cwd()) {
    const lexical = resolve(stateDir);
    let real = lexical;
    try {
      real = realpathSync(lexical);
    } catch {
      // Not created yet: the configured path is the one to keep.
    }
    this.roots = real === lexical ? [lexical] : [lexical, real];
  }

  named(args: unknown): string | null {
    return this.walk(args, 0);
  }

  private walk(value: unknown, depth: number): string | null {
    if (typeof value === "string") return this.inside(value) ? value : null;
    if (value === null || typeof value !== "object") return null;
    if (depth >= MAX_DEPTH) return `(arguments nested deeper than ${MAX_DEPTH} levels, not read)`;
    for (const item of Array.isArray(value) ? value : Object.values(value)) {
      const hit = this.walk(item, depth + 1);
      if (hit !== null) return hit;
    }
    return null;
  }

  private inside(text: string): boolean {
    if (text === "" || text.length > 4096 || text.includes("\0") || text.includes("\n")) return false;
    const expanded = text === "~" || text.startsWith("~/") ? homedir() + text.slice(1) : text;
    const path = isAbsolute(expanded) ? resolve(expanded) : resolve(this.cwd, expanded);
    if (this.holds(path)) return true;
    // A server opens the path the kernel's way: a symbolic link on it (one a cloned repository
    // brings, say, also a dangling one, which a write creates the target of) may lead into the
    // state however the path is written. A path the kernel cannot resolve opens nothing.
    let real: string;
    try {
      real = resolveToolPath(this.cwd, text);
    } catch (error) {
      if (error instanceof PathResolutionError) return false;
      throw error;
    }
    return this.holds(real);
  }

  private holds(path: string): boolean {
    return this.roots.some((root) => path === root || path.startsWith(root + sep));
  }
}
