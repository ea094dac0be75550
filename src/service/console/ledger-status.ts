import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { checkpointDir, checkpointViolation, loadPublicKey, logOrigin, openCheckpoint, readCheckpointFields, scanLog } from "../../ledger/index.js";

/** What the ledger page says about the ledger: the verification, and the latest signed checkpoint against it. */
export interface LedgerStatus {
  readonly exists: boolean;
  readonly size: number;
  readonly chains: number;
  readonly head: string | null;
  readonly origin: string | null;
  /** Corruption or an interrupted append, in words; null when the whole ledger verified. */
  readonly problem: string | null;
  readonly checkpoint: CheckpointStatus | null;
}

export interface CheckpointStatus {
  readonly file: string;
  readonly size: number | null;
  /** `verified`: signed by the owner's key and the ledger still extends it. */
  readonly state: "verified" | "violated" | "unverifiable" | "unreadable";
  readonly detail: string;
}

const CHECKPOINT_NAME = /^(0|[1-9]\d{0,15})\.checkpoint$/;

/** The checkpoint with the largest size in `<ledger dir>/checkpoints/`, as `provenant ledger checkpoint` writes them. */
export function latestCheckpointFile(ledgerPath: string): string | null {
  const dir = checkpointDir(ledgerPath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  let best: { size: number; name: string } | null = null;
  for (const name of names) {
    const m = CHECKPOINT_NAME.exec(name);
    if (m === null) continue;
    const size = Number(m[1]);
    if (best === null || size > best.size) best = { size, name };
  }
  return best === null ? null : join(dir, best.name);
}

/**
 * Recomputes every chain (as `provenant ledger verify` does) and checks the latest signed
 * checkpoint: its signature under the owner's public key, and that the ledger is still consistent
 * with it (not truncated, not rewritten).
 */
export function ledgerStatus(ledgerPath: string, publicKeyPath: string, onProgress?: (done: number, total: number) => void): LedgerStatus {
  const scan = scanLog(ledgerPath, { tree: true, ...(onProgress === undefined ? {} : { onProgress }) });
  if (scan.chains.length === 0) return { exists: false, size: 0, chains: 0, head: null, origin: null, problem: null, checkpoint: null };
  const fault = scan.fault;
  const torn = scan.tornTail;
  const problem =
    fault !== undefined
      ? `CORRUPT at chain ${fault.chain} seq ${fault.seq} (log position ${fault.index}, line ${fault.line}): ${fault.reason}`
      : torn !== undefined
        ? `ends in an interrupted append (${torn.bytes} bytes after seq ${torn.afterSeq ?? "-"}); ${scan.size} complete entries verified`
        : null;
  const file = latestCheckpointFile(ledgerPath);
  let checkpoint: CheckpointStatus | null = null;
  if (file !== null) {
    let note: string;
    let size: number | null = null;
    try {
      note = readFileSync(file, "utf8");
      size = readCheckpointFields(note).size;
    } catch (error) {
      note = "";
      checkpoint = { file, size, state: "unreadable", detail: error instanceof Error ? error.message : String(error) };
    }
    if (checkpoint === null) {
      if (!existsSync(publicKeyPath)) {
        checkpoint = { file, size, state: "unverifiable", detail: `no public key at ${publicKeyPath} to check its signature with` };
      } else {
        try {
          const opened = openCheckpoint(note, logOrigin(scan), loadPublicKey(publicKeyPath));
          const violation = fault === undefined ? checkpointViolation(scan, opened) : "the ledger does not verify";
          checkpoint =
            violation === undefined
              ? { file, size, state: "verified", detail: `signed by the checkpoint key; the ledger still extends it (${opened.size} of ${scan.size} entries)` }
              : { file, size, state: "violated", detail: violation };
        } catch (error) {
          checkpoint = { file, size, state: "violated", detail: error instanceof Error ? error.message : String(error) };
        }
      }
    }
  }
  return { exists: true, size: scan.size, chains: scan.chains.length, head: scan.lastHash ?? null, origin: logOrigin(scan), problem, checkpoint };
}
