import { closeSync, constants, copyFileSync, fsyncSync, linkSync, lstatSync, openSync, renameSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { fsyncDir } from "./atomic-file.js";
import { dirname } from "node:path";
import { isIsoTime } from "./watermark-file.js";
import { nullPrototype } from "../core/config-shape.js";
import { isRecord } from "../core/json-record.js";

/**
 * The record that the watermark state was found corrupt. While it exists every session is
 * untrusted until the owner resets it; it lives beside `watermarks.json` (which keeps the seed's
 * exact format) so that the quarantine itself survives a restart.
 */
export interface QuarantineMarker {
  readonly version: 1;
  /** When the first corrupt file was found. */
  readonly since: string;
  readonly corruptFiles: readonly CorruptFileRecord[];
  /** Sessions the owner has reset since, which are no longer held untrusted. */
  readonly cleared: Readonly<Record<string, { readonly clearedAt: string; readonly clearedBy: string }>>;
}

export interface CorruptFileRecord {
  /** File name (in `.provenance/`) the corrupt content was kept under. */
  readonly movedTo: string;
  /** Which file was corrupt. */
  readonly file: string;
  readonly detectedAt: string;
  readonly error: string;
}

/** Reported to the log callback and kept on the store, so the guard can log and audit it. */
export class CorruptStateError extends Error {
  constructor(
    readonly file: string,
    readonly movedTo: string,
    readonly detail: string,
    readonly detectedAt: string,
  ) {
    super(`${file} is corrupt (${detail}); moved aside to ${movedTo}; every session is untrusted until the owner resets it`);
    this.name = "CorruptStateError";
  }
}

export class QuarantineFormatError extends Error {
  constructor(detail: string) {
    super(`quarantine.json: ${detail}`);
    this.name = "QuarantineFormatError";
  }
}

function str(value: unknown, where: string): string {
  if (typeof value !== "string") throw new QuarantineFormatError(`${where}: expected a string`);
  return value;
}

function isoTime(value: unknown, where: string): string {
  const s = str(value, where);
  if (!isIsoTime(s)) throw new QuarantineFormatError(`${where}: expected an ISO 8601 time`);
  return s;
}

export function parseQuarantine(json: string): QuarantineMarker {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (error) {
    throw new QuarantineFormatError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isRecord(doc) || doc.version !== 1) throw new QuarantineFormatError("expected an object with version 1");
  if (!Array.isArray(doc.corruptFiles) || doc.corruptFiles.length === 0) throw new QuarantineFormatError("corruptFiles: expected a non-empty array");
  if (!isRecord(doc.cleared)) throw new QuarantineFormatError("cleared: expected an object");
  const corruptFiles = doc.corruptFiles.map((entry: unknown, i: number): CorruptFileRecord => {
    if (!isRecord(entry)) throw new QuarantineFormatError(`corruptFiles[${i}]: expected an object`);
    return {
      movedTo: str(entry.movedTo, `corruptFiles[${i}].movedTo`),
      file: str(entry.file, `corruptFiles[${i}].file`),
      detectedAt: isoTime(entry.detectedAt, `corruptFiles[${i}].detectedAt`),
      error: str(entry.error, `corruptFiles[${i}].error`),
    };
  });
  const cleared = nullPrototype<{ clearedAt: string; clearedBy: string }>();
  for (const [sessionId, entry] of Object.entries(doc.cleared)) {
    if (!isRecord(entry)) throw new QuarantineFormatError(`cleared[${JSON.stringify(sessionId)}]: expected an object`);
    Object.defineProperty(cleared, sessionId, {
      value: {
        clearedAt: isoTime(entry.clearedAt, `cleared[${JSON.stringify(sessionId)}].clearedAt`),
        clearedBy: str(entry.clearedBy, `cleared[${JSON.stringify(sessionId)}].clearedBy`),
      },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { version: 1, since: isoTime(doc.since, "since"), corruptFiles, cleared };
}

export function serializeQuarantine(marker: QuarantineMarker): string {
  return `${JSON.stringify(marker, null, 2)}\n`;
}

export function isCleared(marker: QuarantineMarker, sessionId: string): boolean {
  return Object.prototype.hasOwnProperty.call(marker.cleared, sessionId);
}

/** `2026-02-10T20-15-00.000Z`: an ISO time without the colons some file systems and tools refuse. */
export function filesystemSafeTime(date: Date): string {
  return date.toISOString().replaceAll(":", "-");
}

/**
 * Keeps a corrupt file's content under `<path>.corrupt-<time>` without removing it from `path`:
 * a hard link (a copy where links are refused). The caller replaces `path` only after it has
 * durably recorded the quarantine, so a crash in between finds the corrupt file again.
 */
export function keepCorruptCopy(path: string, detectedAt: Date): string {
  const base = `${path}.corrupt-${filesystemSafeTime(detectedAt)}`;
  for (let attempt = 0; ; attempt += 1) {
    const aside = attempt === 0 ? base : `${base}-${randomBytes(4).toString("hex")}`;
    try {
      linkSync(path, aside);
    } catch (error) {
      const code = error instanceof Error && "code" in error ? error.code : undefined;
      if (code === "EEXIST" && attempt < 8) continue;
      if (code === "EEXIST") throw error;
      copyFileSync(path, aside, constants.COPYFILE_EXCL);
      const fd = openSync(aside, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    fsyncDir(dirname(aside));
    return aside;
  }
}

/**
 * Sets a bad state file's content aside for inspection. A regular file is kept by
 * `keepCorruptCopy` (the caller replaces it after recording the quarantine); anything else at
 * the path (a directory, a symbolic link, a socket) is renamed aside whole, since nothing can be
 * written over it and a link must not be followed.
 */
export function setAside(path: string, detectedAt: Date): string {
  if (lstatSync(path).isFile()) return keepCorruptCopy(path, detectedAt);
  const base = `${path}.corrupt-${filesystemSafeTime(detectedAt)}`;
  const aside = `${base}-${randomBytes(4).toString("hex")}`;
  renameSync(path, aside);
  fsyncDir(dirname(aside));
  return aside;
}
