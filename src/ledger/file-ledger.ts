import {
  chmodSync,
  closeSync,
  existsSync,
  fdatasyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  renameSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import type { AuditRecordType, AuditSink } from "../core/audit-sink.js";
import { fsyncDir, writeFileAtomic } from "../state/atomic-file.js";
import { canonicalJSON } from "./canonical-json.js";
import { type ChainEntry, type EntryData, nextEntry, nextEntryOfCanonical } from "./chain-entry.js";
import { type ChainFileScan, type TornTail, scanChainFile } from "./chain-file.js";
import { canonicalLine, encodeEntryLine } from "./entry-line.js";
import { type LogScan, type LogScanOptions, chainFiles, scanLog } from "./ledger-log.js";
import { archiveDir, archiveFile, lockFile } from "./ledger-paths.js";
import { acquireWriterLock } from "./writer-lock.js";

export type FsyncPolicy = "always" | "group" | "never";

export interface LedgerOptions {
  /**
   * always: fdatasync after every entry. group (default): fdatasync once `groupCommitEntries`
   * entries are pending or `groupCommitMs` after the first pending one, whichever comes first.
   * never: leave it to the OS. Every entry is written to the file before append returns, so a
   * process crash loses nothing under any policy; the policy bounds what a power loss can take.
   */
  readonly fsync?: FsyncPolicy;
  readonly groupCommitEntries?: number;
  readonly groupCommitMs?: number;
  /** Seal the active chain once it holds this many entries (genesis included). RFC-001: 10,000. */
  readonly rotateEntries?: number;
  /** Seal the active chain once its genesis is this old. RFC-001: 30 days. */
  readonly rotateAgeMs?: number;
  /** Names the log in its genesis entries and checkpoints. */
  readonly origin?: string;
  readonly now?: () => Date;
  /** Told when opening found an interrupted append and cut it off. */
  readonly onTornTail?: (tail: TornTail) => void;
}

export const LEDGER_DEFAULTS = {
  fsync: "group",
  groupCommitEntries: 64,
  groupCommitMs: 20,
  rotateEntries: 10_000,
  rotateAgeMs: 30 * 24 * 60 * 60 * 1000,
  origin: "provenant.local/ledger",
} as const satisfies LedgerOptions;

export const LEDGER_FORMAT_VERSION = "provenant-ledger/1";

export interface AppendedEntry {
  /** Position in the whole log across chains: the Merkle leaf index. */
  readonly index: number;
  readonly chain: number;
  readonly entry: ChainEntry;
}

export interface Ledger extends AuditSink {
  readonly path: string;
  /** The interrupted append that opening cut off, if there was one. */
  readonly recoveredTail: TornTail | undefined;
  /** Appends `data` exactly as given. Throws on data that is not JSON or on I/O failure; nothing is half-written. */
  append(type: AuditRecordType, data: EntryData): AppendedEntry;
  /** AuditSink: appends `data` with `at` (ISO time) added when the caller did not set it. */
  record(type: AuditRecordType, data: EntryData): void;
  head(): AppendedEntry;
  /** Recomputes the whole log on disk, archives included (what `provenant ledger verify` does). */
  verify(options?: LogScanOptions): LogScan;
  /** Makes every appended entry durable now. */
  sync(): void;
  /** Syncs, releases the writer lock and closes the file. Further appends throw. */
  close(): void;
}

export class LedgerCorruptError extends Error {
  override readonly name = "LedgerCorruptError";
  constructor(readonly scan: ChainFileScan) {
    const fault = scan.fault;
    super(
      fault === undefined
        ? `ledger ${scan.file} is corrupt`
        : `ledger ${fault.file} is corrupt at chain ${fault.chain} seq ${fault.seq} (line ${fault.line}): ${fault.reason}`,
    );
  }
}

/**
 * Opens (creating if needed) the file-backed ledger for appending. Holds the writer lock until
 * close(). Verifies the active chain (and its link to the last sealed one) first and refuses to
 * append to a corrupt one; cuts an interrupted last line back to the last complete entry.
 */
export function openLedger(path: string, options: LedgerOptions = {}): Ledger {
  const settings: Settings = { ...LEDGER_DEFAULTS, now: () => new Date(), ...options };
  checkSettings(settings);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const release = acquireWriterLock(lockFile(path));
  try {
    return new FileLedger(path, settings, release);
  } catch (error) {
    release();
    throw error;
  }
}

type Settings = Required<Omit<LedgerOptions, "onTornTail">> & Pick<LedgerOptions, "onTornTail">;

function checkSettings(s: Settings): void {
  const wholeAtLeast = (key: keyof Settings, min: number): void => {
    const v = s[key];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw new RangeError(`ledger option ${key} must be an integer >= ${min}, got ${String(v)}`);
  };
  if (!["always", "group", "never"].includes(s.fsync)) throw new RangeError(`ledger option fsync must be always, group or never, got ${String(s.fsync)}`);
  wholeAtLeast("groupCommitEntries", 1);
  wholeAtLeast("groupCommitMs", 0);
  // A chain holds its genesis and at least one record, or rotation would never make room.
  wholeAtLeast("rotateEntries", 2);
  wholeAtLeast("rotateAgeMs", 1);
  if (s.origin === "" || /\s|\+/.test(s.origin)) throw new RangeError("ledger option origin must be non-empty, without spaces or '+'");
}

interface ActiveChain {
  readonly chain: number;
  readonly firstIndex: number;
  readonly createdMs: number | undefined;
  last: ChainEntry;
  bytes: number;
}

class FileLedger implements Ledger {
  readonly recoveredTail: TornTail | undefined;
  private fd: number | undefined;
  private active: ActiveChain;
  private pending = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** A group-commit fsync that failed on the timer, where nobody could catch it: thrown to the next caller. */
  private syncFailure: unknown;

  constructor(
    readonly path: string,
    private readonly settings: Settings,
    private readonly release: () => void,
  ) {
    const lastSealed = chainFiles(path).filter((f) => f.sealed).pop();
    const previous =
      lastSealed === undefined ? undefined : this.verified(scanChainFile(lastSealed.file, lastSealed.chain, "unchecked"), true);
    const chain = lastSealed === undefined ? 0 : lastSealed.chain + 1;
    if (!existsSync(path)) this.createChain(chain, previous);
    const scan = scanChainFile(path, chain, previous?.lastHash);
    this.verified(scan, false);
    if (scan.tornTail !== undefined) {
      this.cutBack(scan.tornTail);
      this.recoveredTail = scan.tornTail;
      settings.onTornTail?.(scan.tornTail);
    }
    if (scan.last === undefined) throw new LedgerCorruptError(scan);
    this.active = activeChain(scan, scan.last);
    this.fd = openSync(path, "a", 0o600);
  }

  append(type: AuditRecordType, data: EntryData): AppendedEntry {
    const fd = this.openFd();
    if (this.dueForRotation()) return this.rotateThenAppend(type, data);
    const canonicalData = canonicalJSON(data);
    const entry = nextEntryOfCanonical(this.active.last, type, data, canonicalData);
    this.write(fd, entry, canonicalLine(entry, canonicalData));
    return this.located(entry);
  }

  record(type: AuditRecordType, data: EntryData): void {
    this.append(type, data.at === undefined ? { ...data, at: this.settings.now().toISOString() } : data);
  }

  head(): AppendedEntry {
    return this.located(this.active.last);
  }

  verify(options: LogScanOptions = {}): LogScan {
    this.openFd();
    return scanLog(this.path, options);
  }

  sync(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.syncFailure !== undefined) {
      const failure = this.syncFailure;
      this.syncFailure = undefined;
      throw failure;
    }
    if (this.fd !== undefined && this.pending > 0) fdatasyncSync(this.fd);
    this.pending = 0;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.sync();
    } finally {
      if (this.fd !== undefined) closeSync(this.fd);
      this.fd = undefined;
      this.release();
    }
  }

  private write(fd: number, entry: ChainEntry, line: string): void {
    const bytes = Buffer.from(`${line}\n`, "utf8");
    try {
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    } catch (error) {
      // A short write (disk full) must not leave a fragment for the next entry to land after.
      ftruncateSync(fd, this.active.bytes);
      throw error;
    }
    this.active.last = entry;
    this.active.bytes += bytes.length;
    this.pending++;
    this.commit();
  }

  private commit(): void {
    const { fsync, groupCommitEntries, groupCommitMs } = this.settings;
    if (fsync === "always" || (fsync === "group" && this.pending >= groupCommitEntries)) this.sync();
    else if (fsync === "group" && this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        try {
          this.sync();
        } catch (error) {
          this.syncFailure = error;
        }
      }, groupCommitMs);
      this.timer.unref();
    }
  }

  private dueForRotation(): boolean {
    const { rotateEntries, rotateAgeMs } = this.settings;
    if (this.active.last.seq + 1 >= rotateEntries) return true;
    const created = this.active.createdMs;
    return created !== undefined && this.settings.now().getTime() - created >= rotateAgeMs;
  }

  /** Seals the active chain into the archive and opens the next one, whose genesis continues it. */
  private rotateThenAppend(type: AuditRecordType, data: EntryData): AppendedEntry {
    const sealing = this.active;
    const previous = { entries: sealing.last.seq + 1, lastHash: sealing.last.hash, firstIndex: sealing.firstIndex };
    this.sync();
    closeSync(this.openFd());
    this.fd = undefined;
    const target = archiveFile(this.path, sealing.chain);
    if (existsSync(target)) throw new Error(`cannot seal chain ${sealing.chain}: ${target} already exists`);
    mkdirSync(archiveDir(this.path), { recursive: true, mode: 0o700 });
    renameSync(this.path, target);
    chmodSync(target, 0o400);
    fsyncDir(archiveDir(this.path));
    fsyncDir(dirname(this.path));
    const genesis = this.createChain(sealing.chain + 1, previous);
    this.active = {
      chain: sealing.chain + 1,
      firstIndex: sealing.firstIndex + previous.entries,
      createdMs: this.settings.now().getTime(),
      last: genesis,
      bytes: Buffer.byteLength(`${encodeEntryLine(genesis)}\n`),
    };
    this.fd = openSync(this.path, "a", 0o600);
    return this.append(type, data);
  }

  private createChain(
    chain: number,
    previous: { readonly entries: number; readonly lastHash: string; readonly firstIndex: number } | undefined,
  ): ChainEntry {
    const genesis = nextEntry(undefined, "GENESIS", {
      chain,
      ...(previous === undefined ? {} : { continues_from: previous.lastHash }),
      created: this.settings.now().toISOString(),
      first_index: previous === undefined ? 0 : previous.firstIndex + previous.entries,
      origin: this.settings.origin,
      version: LEDGER_FORMAT_VERSION,
    });
    writeFileAtomic(this.path, `${encodeEntryLine(genesis)}\n`, 0o600);
    return genesis;
  }

  private verified(scan: ChainFileScan, sealed: boolean): { entries: number; lastHash: string; firstIndex: number } {
    if (scan.fault !== undefined || (sealed && scan.tornTail !== undefined)) throw new LedgerCorruptError(scan);
    return { entries: scan.entries, lastHash: scan.lastHash, firstIndex: firstIndexOf(scan) };
  }

  private cutBack(tail: TornTail): void {
    const fd = openSync(this.path, "r+");
    try {
      ftruncateSync(fd, tail.offset);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  private located(entry: ChainEntry): AppendedEntry {
    return { index: this.active.firstIndex + entry.seq, chain: this.active.chain, entry };
  }

  private openFd(): number {
    if (this.fd === undefined) throw new Error(`ledger ${this.path} is closed`);
    if (this.syncFailure !== undefined) this.sync();
    return this.fd;
  }
}

function firstIndexOf(scan: ChainFileScan): number {
  const first = scan.genesis?.first_index;
  return typeof first === "number" && Number.isSafeInteger(first) && first >= 0 ? first : 0;
}

function activeChain(scan: ChainFileScan, last: ChainEntry): ActiveChain {
  const created = scan.genesis?.created;
  const createdMs = typeof created === "string" ? Date.parse(created) : Number.NaN;
  return {
    chain: scan.chain,
    firstIndex: firstIndexOf(scan),
    createdMs: Number.isNaN(createdMs) ? undefined : createdMs,
    last,
    bytes: scan.completeBytes,
  };
}
