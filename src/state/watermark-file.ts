import { isTrustLevel } from "../core/trust-levels.js";
import type { TrustLevel } from "../core/trust-levels.js";
import { nullPrototype } from "../core/config-shape.js";
import { isRecord } from "../core/json-record.js";

/** One owner reset of a session, kept for audit in the watermark's `resetHistory`. */
export interface ResetRecord {
  readonly resetAt: string;
  readonly resetBy: string;
  readonly previousLevel: TrustLevel;
  readonly newLevel: TrustLevel;
}

/** A session's watermark, exactly the seed's `watermarks.json` entry. */
export interface Watermark {
  readonly level: TrustLevel;
  readonly reason: string;
  readonly escalatedAt: string;
  readonly escalatedBy: string;
  readonly lastImpactedTool: string | null;
  readonly resetHistory: readonly ResetRecord[];
}

export const WATERMARK_FILE_VERSION = 1;

export class WatermarkFormatError extends Error {
  constructor(readonly where: string, detail: string) {
    super(`${where}: ${detail}`);
    this.name = "WatermarkFormatError";
  }
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function exactKeys(value: Record<string, unknown>, keys: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) throw new WatermarkFormatError(where, `unexpected key ${JSON.stringify(key)}`);
  }
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) throw new WatermarkFormatError(where, `missing key ${JSON.stringify(key)}`);
  }
}

function text(value: unknown, where: string): string {
  if (typeof value !== "string") throw new WatermarkFormatError(where, `expected a string, got ${typeof value}`);
  return value;
}

export function isIsoTime(value: string): boolean {
  return ISO_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

function time(value: unknown, where: string): string {
  const s = text(value, where);
  if (!isIsoTime(s)) throw new WatermarkFormatError(where, `expected an ISO 8601 time, got ${JSON.stringify(s)}`);
  return s;
}

function level(value: unknown, where: string): TrustLevel {
  if (!isTrustLevel(value)) throw new WatermarkFormatError(where, `expected a trust level, got ${JSON.stringify(value)}`);
  return value;
}

function parseReset(value: unknown, where: string): ResetRecord {
  if (!isRecord(value)) throw new WatermarkFormatError(where, "expected an object");
  exactKeys(value, ["resetAt", "resetBy", "previousLevel", "newLevel"], where);
  return {
    resetAt: time(value.resetAt, `${where}.resetAt`),
    resetBy: text(value.resetBy, `${where}.resetBy`),
    previousLevel: level(value.previousLevel, `${where}.previousLevel`),
    newLevel: level(value.newLevel, `${where}.newLevel`),
  };
}

function parseWatermark(value: unknown, where: string): Watermark {
  if (!isRecord(value)) throw new WatermarkFormatError(where, "expected an object");
  exactKeys(value, ["level", "reason", "escalatedAt", "escalatedBy", "lastImpactedTool", "resetHistory"], where);
  const impacted = value.lastImpactedTool;
  if (!Array.isArray(value.resetHistory)) throw new WatermarkFormatError(`${where}.resetHistory`, "expected an array");
  return {
    level: level(value.level, `${where}.level`),
    reason: text(value.reason, `${where}.reason`),
    escalatedAt: time(value.escalatedAt, `${where}.escalatedAt`),
    escalatedBy: text(value.escalatedBy, `${where}.escalatedBy`),
    lastImpactedTool: impacted === null ? null : text(impacted, `${where}.lastImpactedTool`),
    resetHistory: value.resetHistory.map((r: unknown, i: number) => parseReset(r, `${where}.resetHistory[${i}]`)),
  };
}

/** Parses `watermarks.json`, refusing anything but the seed's exact shape. */
export function parseWatermarkFile(json: string): Map<string, Watermark> {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (error) {
    throw new WatermarkFormatError("watermarks.json", `not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isRecord(doc)) throw new WatermarkFormatError("watermarks.json", "expected an object");
  exactKeys(doc, ["version", "watermarks"], "watermarks.json");
  if (doc.version !== WATERMARK_FILE_VERSION) {
    throw new WatermarkFormatError("watermarks.json.version", `expected ${WATERMARK_FILE_VERSION}, got ${JSON.stringify(doc.version)}`);
  }
  if (!isRecord(doc.watermarks)) throw new WatermarkFormatError("watermarks.json.watermarks", "expected an object");
  const entries = new Map<string, Watermark>();
  for (const [sessionId, value] of Object.entries(doc.watermarks)) {
    const where = `watermarks.json.watermarks[${JSON.stringify(sessionId)}]`;
    if (sessionId === "") throw new WatermarkFormatError(where, "empty session id");
    entries.set(sessionId, parseWatermark(value, where));
  }
  return entries;
}

export function serializeWatermarkFile(entries: ReadonlyMap<string, Watermark>): string {
  const watermarks = nullPrototype<Watermark>();
  // Defined, not assigned: no session id (such as "__proto__") can reach a setter.
  for (const [sessionId, watermark] of entries) Object.defineProperty(watermarks, sessionId, { value: watermark, enumerable: true });
  return `${JSON.stringify({ version: WATERMARK_FILE_VERSION, watermarks }, null, 2)}\n`;
}
