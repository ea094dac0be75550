import { lstatSync, mkdirSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../state/atomic-file.js";
import { hashContent } from "./hash.js";
import type { SigContext } from "./sig-context.js";

/** How long before a call began a file's change time still counts as the call's (the kernel's clock is coarser). */
const CLOCK_SLACK_MS = 1000;

/** One signed file a tool call changed, and what was done about it. */
export interface RestoredFile {
  readonly file: string;
  /** Whether the signed content is back in place. */
  readonly restored: boolean;
  /** Where what the call left there was kept (under keepDir); null when it left nothing (a deleted file). */
  readonly keptAt: string | null;
  /** Why it could not be restored. */
  readonly problem?: string;
}

/**
 * Puts back every signed file whose bytes no longer hash to its signature, after a tool call that
 * may have changed it by a way the mutation gate cannot read (a script, a program that picks its
 * own names). What the call left is kept under `keepDir` first, so nothing is lost. Files whose
 * inode did not change since `since` (ms; null: unknown, every file is hashed) are not read: the
 * kernel sets a change time on every write, rename or link, and a program cannot set it back.
 */
export function restoreSignedFiles(ctx: SigContext, since: number | null, keepDir: string, now: Date): RestoredFile[] {
  const out: RestoredFile[] = [];
  for (const file of ctx.store.listSignedFiles()) {
    const path = join(ctx.projectRoot, file);
    const found = lstatOrNull(path);
    if (found !== null && found.isFile() && since !== null && found.ctimeMs < since - CLOCK_SLACK_MS) continue;
    const loaded = ctx.store.loadSignature(file);
    if (loaded.status !== "found") continue;
    const current = found?.isFile() === true ? readFileSync(path) : null;
    if (current !== null && hashContent(current) === loaded.signature.hash) continue;
    const signed = ctx.store.loadSignedContent(file);
    if (signed === undefined || hashContent(signed) !== loaded.signature.hash) {
      out.push({ file, restored: false, keptAt: null, problem: "the signed content is not in the signature store" });
      continue;
    }
    if (found?.isDirectory() === true) {
      out.push({ file, restored: false, keptAt: null, problem: "a directory now stands at its path" });
      continue;
    }
    const keptAt = found === null ? null : keep(keepDir, file, found, path, current, now);
    try {
      ctx.store.writeProjectFile(file, signed);
    } catch (error) {
      out.push({ file, restored: false, keptAt, problem: (error as Error).message });
      continue;
    }
    out.push({ file, restored: true, keptAt });
  }
  return out;
}

/** Keeps what stands at a signed file's path: its bytes, or for a link the link's target as text. */
function keep(keepDir: string, file: string, found: Stats, path: string, current: Buffer | null, now: Date): string {
  const kept = join(keepDir, `${now.toISOString().replace(/[:.]/g, "-")}`, found.isSymbolicLink() ? `${file}.link` : file);
  mkdirSync(dirname(kept), { recursive: true, mode: 0o700 });
  const bytes = current ?? (found.isSymbolicLink() ? Buffer.from(readlinkSync(path)) : Buffer.alloc(0));
  writeFileAtomic(kept, bytes, 0o600);
  return kept;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw error;
  }
}
