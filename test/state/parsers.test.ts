import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TRUST_LEVELS } from "../../src/core/trust-levels.js";
import { BlockedWriteError, BlockedWriteStore } from "../../src/state/blocked-write-store.js";
import { CorruptStateError, QuarantineFormatError, isCleared, keepCorruptCopy, parseQuarantine, serializeQuarantine } from "../../src/state/quarantine.js";
import type { QuarantineMarker } from "../../src/state/quarantine.js";
import { WatermarkFormatError, parseWatermarkFile, serializeWatermarkFile } from "../../src/state/watermark-file.js";
import type { Watermark } from "../../src/state/watermark-file.js";

const isoTime = fc
  .integer({ min: Date.parse("2000-01-01T00:00:00Z"), max: Date.parse("2100-01-01T00:00:00Z") })
  .map((ms) => new Date(ms).toISOString());
const level = fc.constantFrom(...TRUST_LEVELS);
const watermark: fc.Arbitrary<Watermark> = fc.record({
  level,
  reason: fc.string(),
  escalatedAt: isoTime,
  escalatedBy: fc.string(),
  lastImpactedTool: fc.option(fc.string(), { nil: null }),
  resetHistory: fc.array(fc.record({ resetAt: isoTime, resetBy: fc.string(), previousLevel: level, newLevel: level }), { maxLength: 3 }),
});
const sessions = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), watermark, { maxKeys: 5 });

/** Replaces one value somewhere inside a JSON document by another. */
function mutate(doc: unknown, path: readonly number[], replacement: unknown): unknown {
  if (path.length === 0 || typeof doc !== "object" || doc === null) return replacement;
  const [head = 0, ...rest] = path;
  if (Array.isArray(doc)) {
    if (doc.length === 0) return replacement;
    const i = head % doc.length;
    return doc.map((v, j) => (j === i ? mutate(v, rest, replacement) : v));
  }
  const keys = Object.keys(doc);
  if (keys.length === 0) return replacement;
  const key = keys[head % keys.length] ?? "";
  return { ...doc, [key]: mutate((doc as Record<string, unknown>)[key], rest, replacement) };
}

describe("watermarks.json parser", () => {
  it("round-trips every valid file", () => {
    fc.assert(
      fc.property(sessions, (dict) => {
        const entries = new Map(Object.entries(dict));
        const text = serializeWatermarkFile(entries);
        expect(parseWatermarkFile(text)).toEqual(entries);
        expect(serializeWatermarkFile(parseWatermarkFile(text))).toBe(text);
      }),
    );
  });

  it("throws only WatermarkFormatError on arbitrary text and JSON", () => {
    const check = (text: string) => {
      try {
        parseWatermarkFile(text);
      } catch (error) {
        expect(error).toBeInstanceOf(WatermarkFormatError);
      }
    };
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), check), { numRuns: 500 });
    fc.assert(fc.property(fc.jsonValue(), (v) => check(JSON.stringify(v) ?? "")), { numRuns: 500 });
  });

  it("accepts a mutated file only when it still has the exact shape", () => {
    fc.assert(
      fc.property(sessions, fc.array(fc.nat(), { maxLength: 5 }), fc.jsonValue(), (dict, path, replacement) => {
        const doc = mutate({ version: 1, watermarks: dict }, path, replacement);
        let parsed: Map<string, Watermark>;
        try {
          parsed = parseWatermarkFile(JSON.stringify(doc));
        } catch (error) {
          expect(error).toBeInstanceOf(WatermarkFormatError);
          return;
        }
        // Whatever was accepted re-serializes to a file that parses to the same thing.
        expect(parseWatermarkFile(serializeWatermarkFile(parsed))).toEqual(parsed);
        for (const w of parsed.values()) expect(TRUST_LEVELS).toContain(w.level);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("quarantine.json parser", () => {
  const marker: fc.Arbitrary<QuarantineMarker> = fc.record({
    version: fc.constant(1 as const),
    since: isoTime,
    corruptFiles: fc.array(fc.record({ movedTo: fc.string(), file: fc.string(), detectedAt: isoTime, error: fc.string() }), { minLength: 1, maxLength: 3 }),
    cleared: fc.dictionary(fc.string({ maxLength: 8 }), fc.record({ clearedAt: isoTime, clearedBy: fc.string() }), { maxKeys: 4 }),
  });

  it("round-trips and refuses mutations with its own error only", () => {
    fc.assert(
      fc.property(marker, fc.array(fc.nat(), { maxLength: 4 }), fc.jsonValue(), (m, path, replacement) => {
        expect(parseQuarantine(serializeQuarantine(m))).toEqual(m);
        try {
          parseQuarantine(JSON.stringify(mutate(m, path, replacement)));
        } catch (error) {
          expect(error).toBeInstanceOf(QuarantineFormatError);
        }
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 120 }), (text) => {
        expect(() => parseQuarantine(text)).toThrow(QuarantineFormatError);
      }),
      { numRuns: 300 },
    );
  });
});

describe("quarantine.json's refusals", () => {
  const good = { version: 1, since: "2026-02-10T20:15:00.000Z", corruptFiles: [{ movedTo: "w.corrupt", file: "watermarks.json", detectedAt: "2026-02-10T20:15:00.000Z", error: "not JSON" }], cleared: {} };
  const refusal = (doc: unknown) => {
    try {
      parseQuarantine(typeof doc === "string" ? doc : JSON.stringify(doc));
    } catch (error) {
      return [(error as Error).name, (error as Error).message];
    }
    return ["accepted"];
  };

  it("says where each shape is wrong, and refuses what would loosen the quarantine", () => {
    const cases: [unknown, string][] = [
      [{ ...good, version: 2 }, "expected an object with version 1"],
      [[good], "expected an object with version 1"],
      [{ ...good, corruptFiles: [] }, "corruptFiles: expected a non-empty array"],
      [{ ...good, cleared: [] }, "cleared: expected an object"],
      [{ ...good, corruptFiles: [7] }, "corruptFiles[0]: expected an object"],
      [{ ...good, corruptFiles: [{ ...good.corruptFiles[0], movedTo: 1 }] }, "corruptFiles[0].movedTo: expected a string"],
      [{ ...good, corruptFiles: [{ ...good.corruptFiles[0], file: null }] }, "corruptFiles[0].file: expected a string"],
      [{ ...good, corruptFiles: [{ ...good.corruptFiles[0], detectedAt: "yesterday" }] }, "corruptFiles[0].detectedAt: expected an ISO 8601 time"],
      [{ ...good, corruptFiles: [{ ...good.corruptFiles[0], error: {} }] }, "corruptFiles[0].error: expected a string"],
      [{ ...good, cleared: { s1: "yes" } }, 'cleared["s1"]: expected an object'],
      [{ ...good, cleared: { s1: { clearedAt: "now", clearedBy: "owner" } } }, 'cleared["s1"].clearedAt: expected an ISO 8601 time'],
      [{ ...good, cleared: { s1: { clearedAt: good.since, clearedBy: 1 } } }, 'cleared["s1"].clearedBy: expected a string'],
      [{ ...good, since: "2026-02-10" }, "since: expected an ISO 8601 time"],
    ];
    for (const [doc, detail] of cases) expect(refusal(doc), detail).toEqual(["QuarantineFormatError", `quarantine.json: ${detail}`]);
    expect(refusal(good)).toEqual(["accepted"]);
    expect(refusal("{")).toEqual(["QuarantineFormatError", expect.stringMatching(/^quarantine\.json: not JSON \(.+\)$/)]);
    // A session cleared under an inherited name is cleared by its own entry only.
    const marker = parseQuarantine(JSON.stringify({ ...good, cleared: { __proto__: { clearedAt: good.since, clearedBy: "o" } } }));
    expect(isCleared(marker, "toString")).toBe(false);
  });

  it("keeps a corrupt file's content beside it, under a second name when the first is taken", () => {
    const dir = mkdtempSync(join(tmpdir(), "provenant-aside-"));
    try {
      const path = join(dir, "watermarks.json");
      writeFileSync(path, "{ broken");
      const at = new Date("2026-02-10T20:15:00.000Z");
      const first = keepCorruptCopy(path, at);
      expect(first).toBe(`${path}.corrupt-2026-02-10T20-15-00.000Z`);
      const second = keepCorruptCopy(path, at);
      expect(second).toMatch(/\.corrupt-2026-02-10T20-15-00\.000Z-[0-9a-f]{8}$/);
      expect([readFileSync(first, "utf8"), readFileSync(second, "utf8"), readFileSync(path, "utf8")]).toEqual(["{ broken", "{ broken", "{ broken"]);
      const err = new CorruptStateError("watermarks.json", "w.corrupt", "not JSON", "2026-02-10T20:15:00.000Z");
      expect([err.name, err.message]).toEqual(["CorruptStateError", "watermarks.json is corrupt (not JSON); moved aside to w.corrupt; every session is untrusted until the owner resets it"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("staged write parser", () => {
  let ws: string;
  beforeAll(() => {
    ws = mkdtempSync(join(tmpdir(), "provenant-parse-"));
    mkdirSync(join(ws, ".provenance", "blocked-writes"), { recursive: true });
  });
  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  it("reports hostile staged files as unreadable, never anything else", () => {
    const store = new BlockedWriteStore(ws);
    const id = "a".repeat(32);
    const valid = {
      version: 1,
      id,
      sessionId: "s",
      tool: "write",
      operation: "write",
      targetPath: "SOUL.md",
      resolvedPath: "/w/SOUL.md",
      content: "x",
      edits: null,
      baseSha256: null,
      taint: "untrusted",
      reason: "r",
      createdAt: "2026-02-10T20:15:00.000Z",
    };
    writeFileSync(join(store.dir, `${id}.json`), JSON.stringify(valid));
    expect(store.get(id)).toEqual(valid);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 3 }), fc.jsonValue(), (path, replacement) => {
        writeFileSync(join(store.dir, `${id}.json`), JSON.stringify(mutate(valid, path, replacement)) ?? "");
        try {
          const parsed = store.get(id);
          expect(parsed.id).toBe(id);
          expect(TRUST_LEVELS).toContain(parsed.taint);
        } catch (error) {
          expect(error).toBeInstanceOf(BlockedWriteError);
          expect((error as BlockedWriteError).code).toBe("unreadable");
        }
      }),
      { numRuns: 400 },
    );
  });
});
