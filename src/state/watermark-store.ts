import { join } from "node:path";
import { lessTrusted, parseTrustLevel } from "../core/trust-levels.js";
import type { TrustLevel } from "../core/trust-levels.js";
import { writeFileAtomic } from "./atomic-file.js";
import { ensureDirDurable } from "./durable-dir.js";
import { sameStamp, stampOf, type FileStamp } from "./file-stamp.js";
import { withFileLock } from "./file-lock.js";
import { removeStaleTempFiles } from "./stale-temp-files.js";
import {
  CorruptStateError,
  isCleared,
  setAside,
  parseQuarantine,
  serializeQuarantine,
} from "./quarantine.js";
import type { QuarantineMarker } from "./quarantine.js";
import { parseWatermarkFile, serializeWatermarkFile } from "./watermark-file.js";
import { describeFsError, readStateFile } from "./state-file-read.js";
import type { ResetRecord, Watermark } from "./watermark-file.js";

export type { ResetRecord, Watermark } from "./watermark-file.js";

/**
 * The session taint watermark: the least trusted level a session has reached, carried from turn to
 * turn and across restarts. It only ever escalates; only the owner's reset or a fresh session
 * (`clear`) lowers it.
 */
export interface WatermarkStore {
  /** The session's watermark as this process knows it; never touches the disk. */
  get(sessionId: string): Watermark | undefined;
  /** Raises the stored level when `level` is less trusted; durable before it returns. True when it changed. */
  escalate(sessionId: string, level: TrustLevel, reason: string, escalatedBy: string, now: Date): boolean;
  /** Records the last tool the watermark blocked; written later, coalesced with other notes. */
  noteImpacted(sessionId: string, tool: string): void;
  /** The owner's `.reset-trust`: sets the level and appends to `resetHistory`; durable before it returns. */
  reset(sessionId: string, to: TrustLevel, by: string, now: Date): void;
  /** A fresh session (`/new`, `/reset`): forgets its watermark; durable before it returns. */
  clear(sessionId: string): void;
  /** Writes pending `noteImpacted` updates now. */
  flush(): void;
  /** Flushes and stops the debounce timer; later calls throw. */
  close(): void;
  /** Reads changes other processes made (a file store shared by several front ends); cheap when none. */
  refresh?(): void;
}

export interface FileWatermarkStoreOptions {
  /** How long `noteImpacted` updates wait to be coalesced into one write. Default 1000 ms. */
  readonly debounceMs?: number;
  /** Called once for every corrupt state file found, after it was moved aside. */
  readonly onCorrupt?: (error: CorruptStateError) => void;
  /** Called with operational messages (a failed debounced write). */
  readonly log?: (message: string) => void;
  /** The clock for quarantine timestamps; escalations and resets take their time as an argument. */
  readonly clock?: () => Date;
  /** How long to wait for another process's lock before failing. Default 10 s. */
  readonly lockTimeoutMs?: number;
}

/** Kept per watermark; older resets are still in the ledger. */
export const MAX_RESET_HISTORY = 100;

export class StoreClosedError extends Error {
  constructor() {
    super("the watermark store is closed");
    this.name = "StoreClosedError";
  }
}

function checkSessionId(sessionId: string): void {
  if (typeof sessionId !== "string" || sessionId === "") throw new TypeError("sessionId must be a non-empty string");
}

function checkText(value: string, name: string): void {
  if (typeof value !== "string") throw new TypeError(`${name} must be a string`);
}

function checkDate(now: Date): string {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new TypeError("now must be a valid Date");
  return now.toISOString();
}

/**
 * `<workspace>/.provenance/watermarks.json` in the seed's exact format, with a quarantine marker
 * (`quarantine.json`) beside it once a corrupt file has been seen.
 *
 * Every change is a read-modify-write of the whole file under a lock file, applied to what is on
 * disk at that moment, so several processes sharing a workspace never undo each other's
 * escalations. `get` answers from memory: a change made by another process is seen once this one
 * next writes, or after a restart.
 */
export class FileWatermarkStore implements WatermarkStore {
  readonly dir: string;
  readonly file: string;
  readonly quarantineFile: string;
  private readonly lockFile: string;
  private readonly debounceMs: number;
  private readonly onCorrupt: (error: CorruptStateError) => void;
  private readonly log: (message: string) => void;
  private readonly clock: () => Date;
  private readonly lockTimeoutMs: number;

  private entries = new Map<string, Watermark>();
  private stamp: FileStamp | null = null;
  private quarantineMarker: QuarantineMarker | null = null;
  private quarantineStamp: FileStamp | null = null;
  private readonly pendingImpacts = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly reports: CorruptStateError[] = [];
  /** The last unusable state this instance reported, per file, so the same fault is reported once. */
  private readonly reported = new Map<string, string>();

  constructor(workspaceDir: string, options: FileWatermarkStoreOptions = {}) {
    this.dir = join(workspaceDir, ".provenance");
    this.file = join(this.dir, "watermarks.json");
    this.quarantineFile = join(this.dir, "quarantine.json");
    this.lockFile = join(this.dir, "watermarks.json.lock");
    this.debounceMs = options.debounceMs ?? 1000;
    this.onCorrupt = options.onCorrupt ?? (() => undefined);
    this.log = options.log ?? (() => undefined);
    this.clock = options.clock ?? (() => new Date());
    this.lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    try {
      ensureDirDurable(this.dir);
      removeStaleTempFiles(this.dir);
      this.locked(() => this.syncFromDisk());
    } catch (error) {
      // The state cannot be read at all (the directory is a file, the lock is not one, the disk
      // fails): nothing on disk can vouch for any session, so every one starts untrusted.
      this.quarantineCorrupt(null, ".provenance", `the state directory cannot be used: ${describeFsError(error)}`);
    }
  }

  /** Corrupt files found by this instance, oldest first. */
  corruption(): readonly CorruptStateError[] {
    return [...this.reports];
  }

  /** The quarantine in force, if any. */
  quarantine(): QuarantineMarker | null {
    return this.quarantineMarker;
  }

  /** Another process sharing the workspace may have escalated or reset a watermark since. */
  refresh(): void {
    this.checkOpen();
    // Unchanged files need no lock: the common case, paid before every turn of a shared session.
    if (sameStamp(stampOf(this.file), this.stamp) && sameStamp(stampOf(this.quarantineFile), this.quarantineStamp)) return;
    this.locked(() => this.syncFromDisk());
  }

  get(sessionId: string): Watermark | undefined {
    const stored = this.entries.get(sessionId);
    const impacted = this.pendingImpacts.get(sessionId);
    const marker = this.quarantineMarker;
    if (marker !== null && !isCleared(marker, sessionId)) {
      const first = marker.corruptFiles[0];
      return {
        level: "untrusted",
        reason: `watermark state quarantined since ${marker.since}: ${first?.file ?? "a state file"} was corrupt (kept as ${first?.movedTo ?? "?"}); the owner must reset this session`,
        escalatedAt: marker.since,
        escalatedBy: "quarantine",
        lastImpactedTool: impacted ?? stored?.lastImpactedTool ?? null,
        resetHistory: stored?.resetHistory ?? [],
      };
    }
    if (stored === undefined) return undefined;
    return impacted === undefined ? stored : { ...stored, lastImpactedTool: impacted };
  }

  escalate(sessionId: string, level: TrustLevel, reason: string, escalatedBy: string, now: Date): boolean {
    this.checkOpen();
    checkSessionId(sessionId);
    parseTrustLevel(level, "escalate level");
    checkText(reason, "reason");
    checkText(escalatedBy, "escalatedBy");
    const at = checkDate(now);
    const raises = (current: Watermark | undefined): boolean => lessTrusted(level, current?.level ?? "trusted");
    // Fast path: nothing to raise and nobody has written since we last read.
    if (!raises(this.entries.get(sessionId)) && sameStamp(this.stamp, stampOf(this.file))) return false;
    return this.locked(() => {
      this.syncFromDisk();
      const current = this.entries.get(sessionId);
      if (!raises(current)) return false;
      this.entries.set(sessionId, {
        level,
        reason,
        escalatedAt: at,
        escalatedBy,
        lastImpactedTool: this.pendingImpacts.get(sessionId) ?? current?.lastImpactedTool ?? null,
        resetHistory: current?.resetHistory ?? [],
      });
      this.pendingImpacts.delete(sessionId);
      this.writeEntries();
      return true;
    });
  }

  noteImpacted(sessionId: string, tool: string): void {
    this.checkOpen();
    checkSessionId(sessionId);
    checkText(tool, "tool");
    this.pendingImpacts.set(sessionId, tool);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        try {
          this.flush();
        } catch (error) {
          this.log(`watermark store: deferred write failed, will retry on the next flush: ${error instanceof Error ? error.message : String(error)}`);
        }
      }, this.debounceMs);
      this.timer.unref();
    }
  }

  reset(sessionId: string, to: TrustLevel, by: string, now: Date): void {
    this.checkOpen();
    checkSessionId(sessionId);
    parseTrustLevel(to, "reset level");
    checkText(by, "by");
    const at = checkDate(now);
    this.locked(() => {
      this.syncFromDisk();
      const previous = this.get(sessionId);
      const record: ResetRecord = { resetAt: at, resetBy: by, previousLevel: previous?.level ?? "trusted", newLevel: to };
      const history = [...(this.entries.get(sessionId)?.resetHistory ?? []), record].slice(-MAX_RESET_HISTORY);
      this.entries.set(sessionId, {
        level: to,
        reason: `reset to ${to} by ${by}`,
        escalatedAt: at,
        escalatedBy: by,
        lastImpactedTool: null,
        resetHistory: history,
      });
      this.pendingImpacts.delete(sessionId);
      // The watermark is written before the quarantine is lifted: a crash in between leaves the
      // session quarantined (untrusted), never at a level more trusted than the owner chose.
      this.writeEntries();
      const marker = this.quarantineMarker;
      if (marker !== null && !isCleared(marker, sessionId)) {
        const cleared = { ...marker.cleared };
        Object.defineProperty(cleared, sessionId, {
          value: { clearedAt: at, clearedBy: by },
          enumerable: true,
          writable: true,
          configurable: true,
        });
        this.writeQuarantine({ ...marker, cleared });
      }
    });
  }

  clear(sessionId: string): void {
    this.checkOpen();
    checkSessionId(sessionId);
    this.pendingImpacts.delete(sessionId);
    this.locked(() => {
      this.syncFromDisk();
      if (this.entries.delete(sessionId)) this.writeEntries();
    });
  }

  flush(): void {
    if (this.pendingImpacts.size === 0) return;
    this.locked(() => {
      this.syncFromDisk();
      let changed = false;
      for (const [sessionId, tool] of this.pendingImpacts) {
        const current = this.entries.get(sessionId);
        if (current !== undefined && current.lastImpactedTool !== tool) {
          this.entries.set(sessionId, { ...current, lastImpactedTool: tool });
          changed = true;
        }
      }
      if (changed) this.writeEntries();
      this.pendingImpacts.clear();
    });
  }

  close(): void {
    if (this.closed) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.flush();
    this.closed = true;
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreClosedError();
  }

  private locked<T>(body: () => T): T {
    return withFileLock(this.lockFile, body, this.lockTimeoutMs);
  }

  private writeEntries(): void {
    writeFileAtomic(this.file, serializeWatermarkFile(this.entries));
    this.stamp = stampOf(this.file);
  }

  private writeQuarantine(marker: QuarantineMarker): void {
    writeFileAtomic(this.quarantineFile, serializeQuarantine(marker));
    this.quarantineMarker = marker;
    this.quarantineStamp = stampOf(this.quarantineFile);
  }

  /**
   * Brings memory up to date with the disk; called with the lock held. Whatever is at the path
   * (missing, truncated, the wrong JSON, a directory, a link elsewhere, too big, unreadable)
   * ends in a parsed file or a quarantine, never in an exception.
   */
  private syncFromDisk(): void {
    const quarantineStamp = stampOf(this.quarantineFile);
    if (!sameStamp(quarantineStamp, this.quarantineStamp)) this.loadQuarantine();
    const stamp = stampOf(this.file);
    if (sameStamp(stamp, this.stamp)) return;
    const read = readStateFile(this.file);
    if (read.kind === "missing") {
      this.entries = new Map();
      this.stamp = null;
      return;
    }
    let detail: string;
    if (read.kind === "ok") {
      try {
        this.entries = parseWatermarkFile(read.text);
        this.stamp = stamp;
        this.reported.delete(this.file);
        return;
      } catch (error) {
        detail = error instanceof Error ? error.message : String(error);
      }
    } else {
      detail = `watermarks.json ${read.detail}`;
    }
    // What was read before the file went bad is not trusted either: the quarantine makes every
    // session untrusted, and only escalations recorded from now on are kept.
    this.entries = new Map();
    if (this.reported.get(this.file) === detail) return;
    this.reported.set(this.file, detail);
    this.quarantineCorrupt(this.file, "watermarks.json", detail);
    try {
      writeFileAtomic(this.file, serializeWatermarkFile(this.entries));
      this.stamp = stampOf(this.file);
      this.reported.delete(this.file);
    } catch (error) {
      this.log(`watermark store: could not replace ${this.file} (${describeFsError(error)}); sessions stay untrusted`);
    }
  }

  private loadQuarantine(): void {
    const read = readStateFile(this.quarantineFile);
    if (read.kind === "missing") {
      // The owner removed the marker: that lifts the quarantine for every session.
      this.quarantineMarker = null;
      this.quarantineStamp = null;
      return;
    }
    let detail: string;
    if (read.kind === "ok") {
      try {
        this.quarantineMarker = parseQuarantine(read.text);
        this.quarantineStamp = stampOf(this.quarantineFile);
        return;
      } catch (error) {
        detail = error instanceof Error ? error.message : String(error);
      }
    } else {
      detail = `quarantine.json ${read.detail}`;
    }
    // The list of reset sessions is lost with it, so every session is held untrusted again.
    this.quarantineMarker = null;
    if (this.reported.get(this.quarantineFile) === detail) return;
    this.reported.set(this.quarantineFile, detail);
    this.quarantineCorrupt(this.quarantineFile, "quarantine.json", detail);
  }

  /**
   * Keeps the bad file, records the quarantine durably, then reports it. Where the disk refuses
   * even that, the quarantine holds in memory: sessions are untrusted either way.
   */
  private quarantineCorrupt(path: string | null, name: string, detail: string): void {
    const detected = this.clock();
    const detectedAt = detected.toISOString();
    let movedName = "(not moved)";
    let extra = "";
    try {
      if (path !== null) movedName = setAside(path, detected).slice(this.dir.length + 1);
    } catch (error) {
      extra = `; it could not be moved aside (${describeFsError(error)})`;
    }
    const prior = this.quarantineMarker;
    const marker: QuarantineMarker = {
      version: 1,
      since: prior?.since ?? detectedAt,
      corruptFiles: [...(prior?.corruptFiles ?? []), { file: name, movedTo: movedName, detectedAt, error: `${detail}${extra}` }],
      // The owner's earlier resets vouched for state that is now lost again: every session,
      // those too, is untrusted until reset anew.
      cleared: {},
    };
    try {
      this.writeQuarantine(marker);
    } catch (error) {
      this.quarantineMarker = marker;
      extra += `; the quarantine is held in memory only (${describeFsError(error)})`;
    }
    const report = new CorruptStateError(name, movedName, `${detail}${extra}`, detectedAt);
    this.reports.push(report);
    this.log(report.message);
    this.onCorrupt(report);
  }
}
