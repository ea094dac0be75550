import { constants, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { fsyncDir } from "../state/atomic-file.js";
import { verifyDetached } from "./ed25519.js";
import { hashContent } from "./hash.js";
import type { SigContext } from "./sig-context.js";

/** How long before a call began a file's change time still counts as the call's (the kernel's clock is coarser). */
const CLOCK_SLACK_MS = 1000;

/** One signed file a tool call changed, and what was done about it. */
export interface RestoredFile {
  readonly file: string;
  /** Whether the signed content is back in place. */
  readonly restored: boolean;
  /** Where what the call left there was kept (under keepDir), as it was (a link stays a link); null when it left nothing (a deleted file). */
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
    const stored = ctx.store.loadSignedContent(file);
    const signed = stored !== undefined && hashContent(stored) === loaded.signature.hash ? stored : undefined;
    // A length other than the signed bytes' is a change, seen without reading what may be a huge file.
    const sameLength = signed === undefined || found?.size === signed.byteLength;
    if (found !== null && found.isFile() && sameLength && hashContent(readFileSync(path)) === loaded.signature.hash) continue;
    if (signed === undefined) {
      out.push({ file, restored: false, keptAt: null, problem: "the signed content is not in the signature store" });
      continue;
    }
    // With a public key configured, `.sig/` itself is not trusted unsigned: a script that rewrote
    // the signature and its stored content would otherwise have its own text put back.
    if (ctx.publicKey !== undefined) {
      const detached = ctx.store.loadDetached(file);
      if (detached === "missing" || detached === "corrupted" || !verifyDetached(ctx.publicKey, loaded.raw, detached)) {
        out.push({ file, restored: false, keptAt: null, problem: "its signature does not verify against the configured public key" });
        continue;
      }
    }
    if (found?.isDirectory() === true) {
      out.push({ file, restored: false, keptAt: null, problem: "a directory now stands at its path" });
      continue;
    }
    const keptAt = found === null ? null : keep(keepDir, file, path, found, now);
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

/**
 * Keeps what stands at a signed file's path under another name, before the signed bytes replace
 * it: a hard link to it (no copy, whatever its size; a link stays a link), or, on another file
 * system, a copy. Null when there is nothing that can be kept (a pipe on another file system).
 */
function keep(keepDir: string, file: string, path: string, found: Stats, now: Date): string | null {
  const first = join(keepDir, now.toISOString().replace(/[:.]/g, "-"), file);
  mkdirSync(dirname(first), { recursive: true, mode: 0o700 });
  // The same file changed twice within a clock tick: the second is kept beside the first.
  for (let n = 0; ; n++) {
    const kept = n === 0 ? first : `${first}.${n}`;
    try {
      linkSync(path, kept);
      fsyncDir(dirname(kept));
      return kept;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") continue;
      if (code !== "EXDEV") throw error;
      if (existsSync(kept)) continue;
      if (found.isSymbolicLink()) symlinkSync(readlinkSync(path), kept);
      else if (found.isFile()) copyFileSync(path, kept, constants.COPYFILE_EXCL);
      else return null;
      fsyncDir(dirname(kept));
      return kept;
    }
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw error;
  }
}
