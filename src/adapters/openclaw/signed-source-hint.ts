import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseSigConfig } from "../../sig/sig-config.js";

/**
 * `update_and_sign` must cite the signed owner message that asked for a change, by its signature
 * id `<sessionId>:<channel>:<messageId>`. The model cannot know that id unless it is told, so on
 * a turn that may be the owner's, in a workspace with mutable signed files, the plugin adds one
 * line of context naming it. The id is not a secret: it only resolves if the guard signed that
 * message as the owner's.
 */
export function signedSourceHint(sessionId: string, provider: string, messageId: string): string {
  return `[provenant] The owner's message in this turn is signed as ${sessionId}:${provider}:${messageId}; to change a protected file at the owner's request, call update_and_sign with sourceType "signed_message" and that sourceId.`;
}

const cache = new Map<string, { readonly mtimeMs: number; readonly mutable: boolean }>();

/** Whether the workspace's `.sig/config.json` makes any file mutable (read again when it changes). */
export function hasMutableSignedFiles(workspaceDir: string): boolean {
  const path = join(workspaceDir, ".sig", "config.json");
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return false;
  }
  const known = cache.get(path);
  if (known !== undefined && known.mtimeMs === mtimeMs) return known.mutable;
  let mutable = false;
  try {
    mutable = Object.values(parseSigConfig(readFileSync(path, "utf8")).files ?? {}).some((policy) => policy.mutable === true);
  } catch {
    // A broken .sig/config.json is the signing runtime's to report; here it only means no hint.
  }
  cache.set(path, { mtimeMs, mutable });
  return mutable;
}
