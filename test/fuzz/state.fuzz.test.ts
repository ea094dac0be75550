import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseQuarantine } from "../../src/state/quarantine.js";
import { parseWatermarkFile } from "../../src/state/watermark-file.js";
import { FileWatermarkStore } from "../../src/state/watermark-store.js";
import { fuzzParams, FUZZ_TIMEOUT_MS, hostileName, scratchDir } from "./fuzz-settings.js";

const level = fc.constantFrom("trusted", "shared", "external", "untrusted", "owner", "", null);
const watermark = fc.record(
  {
    level,
    reason: fc.oneof(fc.string(), fc.integer()),
    escalatedAt: fc.constantFrom("2026-02-10T20:15:00.000Z", "yesterday", ""),
    escalatedBy: fc.string(),
    lastImpactedTool: fc.oneof(fc.constant(null), fc.string()),
    resetHistory: fc.oneof(fc.constant([]), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 2 })),
  },
  { requiredKeys: [] },
);
/** Near-valid documents (so the parser's every check is reached) and arbitrary bytes. */
const fileContent = fc.oneof(
  fc.record({ version: fc.constantFrom(1, 2, "1"), watermarks: fc.dictionary(hostileName, watermark, { maxKeys: 3 }) }, { requiredKeys: [] }).map((d) => JSON.stringify(d)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString("latin1")),
);
const quarantineContent = fc.oneof(
  fc.constant(null),
  fc.record({
    version: fc.constantFrom(1, 2),
    since: fc.constantFrom("2026-02-10T20:15:00.000Z", "x"),
    corruptFiles: fc.array(fc.record({ file: fc.string(), movedTo: fc.string(), detectedAt: fc.constant("2026-02-10T20:15:00.000Z"), error: fc.string() }), { maxLength: 2 }),
    cleared: fc.dictionary(hostileName, fc.record({ clearedAt: fc.constant("2026-02-10T20:15:00.000Z"), clearedBy: fc.string() }), { maxKeys: 2 }),
  }).map((d) => JSON.stringify(d)),
  fc.string({ maxLength: 50 }),
);

describe("fuzzing the watermark state files", () => {
  it(
    "any watermarks.json and quarantine.json: the store opens without throwing, a bad file means untrusted, and what it leaves always parses",
    () => {
      fc.assert(
        fc.property(fileContent, quarantineContent, hostileName, (content, quarantine, sessionId) => {
          const ws = scratchDir("provenant-fuzz-state-");
          try {
            const dir = join(ws, ".provenance");
            mkdirSync(dir);
            writeFileSync(join(dir, "watermarks.json"), content);
            if (quarantine !== null) writeFileSync(join(dir, "quarantine.json"), quarantine);
            const store = new FileWatermarkStore(ws);
            let valid = true;
            try {
              parseWatermarkFile(content);
            } catch {
              valid = false;
            }
            if (!valid && sessionId !== "") expect(store.get(sessionId)?.level).toBe("untrusted");
            if (sessionId !== "") store.escalate(sessionId, "external", "fuzz", "fuzz", new Date(1_800_000_000_000));
            store.close();
            parseWatermarkFile(readFileSync(join(dir, "watermarks.json"), "utf8"));
            if (existsSync(join(dir, "quarantine.json"))) parseQuarantine(readFileSync(join(dir, "quarantine.json"), "utf8"));
          } finally {
            rmSync(ws, { recursive: true, force: true });
          }
        }),
        fuzzParams("watermark state files", 0.5),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
