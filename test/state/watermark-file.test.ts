import { describe, expect, it } from "vitest";
import { WatermarkFormatError, isIsoTime, parseWatermarkFile, serializeWatermarkFile } from "../../src/state/watermark-file.js";

const reset = { resetAt: "2026-11-23T10:00:00Z", resetBy: "owner", previousLevel: "untrusted", newLevel: "trusted" };
const entry = {
  level: "external",
  reason: "web_fetch output",
  escalatedAt: "2026-11-23T09:00:00.123Z",
  escalatedBy: "web_fetch",
  lastImpactedTool: null,
  resetHistory: [reset],
};
const doc = (watermarks: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ version: 1, watermarks, ...extra });
const withEntry = (patch: Record<string, unknown>) => doc({ s1: { ...entry, ...patch } });
const W = 'watermarks.json.watermarks["s1"]';

/** The exact error a malformed file gets: the owner is told where, and what was expected. */
function errorOf(text: string): string {
  try {
    parseWatermarkFile(text);
  } catch (error) {
    expect(error).toBeInstanceOf(WatermarkFormatError);
    expect((error as Error).name).toBe("WatermarkFormatError");
    return (error as Error).message;
  }
  throw new Error("parsed");
}

describe("watermarks.json: each malformed file is refused with where and why", () => {
  it.each([
    ["not JSON", "{", /^watermarks\.json: not JSON \(.+\)$/],
    ["an array", "[]", "watermarks.json: expected an object"],
    ["null", "null", "watermarks.json: expected an object"],
    ["an unknown top-level key", doc({}, { extra: 1 }), 'watermarks.json: unexpected key "extra"'],
    ["no watermarks key", JSON.stringify({ version: 1 }), 'watermarks.json: missing key "watermarks"'],
    ["another version", JSON.stringify({ version: 2, watermarks: {} }), "watermarks.json.version: expected 1, got 2"],
    ["watermarks an array", doc([]), "watermarks.json.watermarks: expected an object"],
    ["an empty session id", doc({ "": entry }), 'watermarks.json.watermarks[""]: empty session id'],
    ["an entry that is an array", doc({ s1: [] }), `${W}: expected an object`],
    ["an entry that is null", doc({ s1: null }), `${W}: expected an object`],
    ["an entry with an unknown key", withEntry({ note: "x" }), `${W}: unexpected key "note"`],
    ["an entry without its level", doc({ s1: { ...entry, level: undefined } }), `${W}: missing key "level"`],
    ["an entry without its reset history", doc({ s1: { ...entry, resetHistory: undefined } }), `${W}: missing key "resetHistory"`],
    ["a reset history that is not an array", withEntry({ resetHistory: {} }), `${W}.resetHistory: expected an array`],
    ["an unknown level", withEntry({ level: "root" }), `${W}.level: expected a trust level, got "root"`],
    ["a reason that is not a string", withEntry({ reason: 3 }), `${W}.reason: expected a string, got number`],
    ["a date without a time", withEntry({ escalatedAt: "2026-11-23" }), `${W}.escalatedAt: expected an ISO 8601 time, got "2026-11-23"`],
    ["a time with text after it", withEntry({ escalatedAt: "2026-11-23T09:00:00Zjunk" }), `${W}.escalatedAt: expected an ISO 8601 time, got "2026-11-23T09:00:00Zjunk"`],
    ["a time with text before it", withEntry({ escalatedAt: "x2026-11-23T09:00:00Z" }), `${W}.escalatedAt: expected an ISO 8601 time, got "x2026-11-23T09:00:00Z"`],
    ["an escalatedBy that is not a string", withEntry({ escalatedBy: null }), `${W}.escalatedBy: expected a string, got object`],
    ["a lastImpactedTool that is a number", withEntry({ lastImpactedTool: 1 }), `${W}.lastImpactedTool: expected a string, got number`],
    ["a reset that is not an object", withEntry({ resetHistory: ["x"] }), `${W}.resetHistory[0]: expected an object`],
    ["a reset without its new level", withEntry({ resetHistory: [{ ...reset, newLevel: undefined }] }), `${W}.resetHistory[0]: missing key "newLevel"`],
    ["a reset with an unknown key", withEntry({ resetHistory: [reset, { ...reset, by: "x" }] }), `${W}.resetHistory[1]: unexpected key "by"`],
    ["a reset at no time", withEntry({ resetHistory: [{ ...reset, resetAt: "soon" }] }), `${W}.resetHistory[0].resetAt: expected an ISO 8601 time, got "soon"`],
    ["a reset by no one", withEntry({ resetHistory: [{ ...reset, resetBy: false }] }), `${W}.resetHistory[0].resetBy: expected a string, got boolean`],
    ["a reset from an unknown level", withEntry({ resetHistory: [{ ...reset, previousLevel: "x" }] }), `${W}.resetHistory[0].previousLevel: expected a trust level, got "x"`],
    ["a reset to an unknown level", withEntry({ resetHistory: [{ ...reset, newLevel: 0 }] }), `${W}.resetHistory[0].newLevel: expected a trust level, got 0`],
  ])("%s", (_what, text, expected) => {
    const message = errorOf(text);
    if (typeof expected === "string") expect(message).toBe(expected);
    else expect(message).toMatch(expected);
  });

  it("a valid file parses to what it says", () => {
    const parsed = parseWatermarkFile(doc({ s1: entry, s2: { ...entry, lastImpactedTool: "exec", resetHistory: [] } }));
    expect([...parsed.keys()]).toEqual(["s1", "s2"]);
    expect(parsed.get("s1")).toEqual(entry);
    expect(parsed.get("s2")?.lastImpactedTool).toBe("exec");
  });

  it("serialises every session, including one named like a prototype key, and reads it back", () => {
    const entries = new Map([["__proto__", { ...entry, resetHistory: [] }], ["s1", { ...entry, level: "untrusted" as const, resetHistory: [] }]]);
    const text = serializeWatermarkFile(entries as never);
    expect(Object.getOwnPropertyDescriptor(JSON.parse(text).watermarks, "__proto__")?.value.level).toBe("external");
    expect(parseWatermarkFile(text)).toEqual(entries);
  });
});

describe("ISO 8601 times", () => {
  it.each(["2026-11-23T09:00:00Z", "2026-11-23T09:00:00.5Z", "2026-11-23T09:00:00.123456789Z", "2026-11-23T09:00:00+01:00", "2026-11-23T09:00:00.1-05:30"])(
    "accepts %s",
    (t) => expect(isIsoTime(t)).toBe(true),
  );
  it.each([
    "2026-11-23",
    "2026-11-23T09:00:00",
    "2026-11-23T09:00:00.Z",
    "2026-11-23T09:00:00.1234567890Z",
    "2026-11-23T09:00:00 01:00",
    "2026-11-23T09:00:00+1:00",
    "2026-11-23T09:00:00+01:0",
    "2026-11-23T09:00:00+0100",
    "2026-13-45T09:00:00Z",
    " 2026-11-23T09:00:00Z",
    "2026-11-23T09:00:00Z ",
  ])("refuses %j", (t) => expect(isIsoTime(t)).toBe(false));
});
