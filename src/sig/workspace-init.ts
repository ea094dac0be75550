import { readdirSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { matchesFilePattern } from "./file-policy.js";
import { PathEscapeError, resolveContainedPath } from "./project-path.js";
import { signFile } from "./sign-file.js";
import type { SigContext } from "./sig-context.js";

export const WORKSPACE_INIT_IDENTITY = "workspace:init";

/**
 * Signs the files under a `mutable: true` policy that have no signature yet, as `workspace:init`,
 * so update_and_sign has a first link to chain from. `authorizedIdentities` governs who may
 * update a file, not who bootstraps it. A corrupted signature is left alone: it is evidence.
 */
export function initWorkspace(ctx: SigContext): string[] {
  const signed: string[] = [];
  for (const [pattern, policy] of Object.entries(ctx.config.files ?? {})) {
    if (policy.mutable !== true) continue;
    for (const file of filesMatching(ctx.projectRoot, pattern)) {
      if (ctx.store.loadSignature(file).status !== "not-found") continue;
      signFile(ctx, file, { identity: WORKSPACE_INIT_IDENTITY });
      signed.push(file);
    }
  }
  return signed;
}

function filesMatching(projectRoot: string, pattern: string): string[] {
  if (!pattern.includes("*")) {
    const file = containedOrUndefined(projectRoot, pattern);
    return file !== undefined && isFile(join(projectRoot, file)) ? [file] : [];
  }
  const dir = posix.dirname(pattern);
  const base = dir === "." ? "" : containedOrUndefined(projectRoot, dir);
  if (base === undefined) return [];
  let names: string[];
  try {
    names = readdirSync(join(projectRoot, base));
  } catch {
    return [];
  }
  return names
    .map((name) => (base === "" ? name : `${base}/${name}`))
    .filter((file) => matchesFilePattern(pattern, file) && isFile(join(projectRoot, file)))
    .sort();
}

function containedOrUndefined(projectRoot: string, path: string): string | undefined {
  try {
    return resolveContainedPath(projectRoot, path);
  } catch (error) {
    if (error instanceof PathEscapeError) return undefined;
    throw error;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
