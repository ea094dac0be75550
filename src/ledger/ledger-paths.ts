import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";

/** The workspace's ledger: `<workspace>/.provenance/ledger.jsonl`. */
export function defaultLedgerPath(workspace: string): string {
  return join(workspace, ".provenance", "ledger.jsonl");
}

/** Sealed chains live beside the active file: `ledger.jsonl` -> `ledger.archive/000000.jsonl`, ... */
export function archiveDir(ledgerPath: string): string {
  return join(dirname(ledgerPath), `${basename(ledgerPath).replace(/\.jsonl$/, "")}.archive`);
}

export function archiveFile(ledgerPath: string, chain: number): string {
  return join(archiveDir(ledgerPath), `${String(chain).padStart(6, "0")}.jsonl`);
}

export const ARCHIVE_NAME = /^(\d{6,})\.jsonl$/;

export function lockFile(ledgerPath: string): string {
  return `${ledgerPath}.lock`;
}

/** Signed checkpoints the CLI writes: `<dir of ledger>/checkpoints/<size>.checkpoint`. */
export function checkpointDir(ledgerPath: string): string {
  return join(dirname(ledgerPath), "checkpoints");
}

/**
 * The checkpoint signing key lives outside any workspace, in the owner's configuration directory,
 * so that an agent confined to its workspace can neither read it nor replace the public half.
 */
export function defaultCheckpointKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  const configHome = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(configHome, "provenant", "ledger-checkpoint.key");
}

export function publicKeyPathFor(privateKeyPath: string): string {
  return `${privateKeyPath}.pub`;
}
