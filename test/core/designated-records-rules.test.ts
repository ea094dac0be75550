import { describe, expect, it } from "vitest";
import { fieldNamed, keyHolds, nameWords, parseSerialised, structuredRecords } from "../../src/core/designated-records.js";
import { inLists, inMappings } from "./nesting.js";

const J = (...tokens: string[]): string => tokens.join("\u0001");

describe("parseSerialised", () => {
  it("rule: blank text is no structure", () => {
    expect(parseSerialised("")).toBeUndefined();
    expect(parseSerialised("  \n\t ")).toBeUndefined();
  });

  it("rule: a YAML text with a warning (an unknown tag) is no structure", () => {
    expect(parseSerialised("a: !foo 1")).toBeUndefined();
    expect(parseSerialised("a: 1")).toEqual({ a: 1 });
  });

  it("rule: one YAML document is a structure, several are none (an unread one could disagree)", () => {
    expect(parseSerialised("---\na: 1\n...\n")).toEqual({ a: 1 });
    expect(parseSerialised("a: 1\n---\nb: 2")).toBeUndefined();
    expect(parseSerialised("- title: Team sync\n  participants: [ann]\n---\n- title: Team sync\n  participants: [eve]")).toBeUndefined();
  });

  it("rule: an alias is refused (it is how a small text expands)", () => {
    expect(parseSerialised("a: &x [1, 2]\nb: *x")).toBeUndefined();
  });

  it("rule: text up to 256,000 characters is read, a longer one is not", () => {
    const sized = (length: number): string => `{"t":"${"x".repeat(length - 8)}"}`;
    expect(sized(256_000)).toHaveLength(256_000);
    expect(parseSerialised(sized(256_000))).toEqual({ t: "x".repeat(255_992) });
    expect(parseSerialised(sized(256_001))).toBeUndefined();
  });

  it("rule: nesting up to 64 brackets is read, deeper is not", () => {
    expect(parseSerialised(`${'{"a":'.repeat(64)}1${"}".repeat(64)}`)).toEqual(inMappings(1, 64));
    expect(parseSerialised(`${'{"a":'.repeat(65)}1${"}".repeat(65)}`)).toBeUndefined();
  });
});

describe("structuredRecords", () => {
  it("rule: one mapping is one record, as an object, JSON or YAML", () => {
    const expected = [[{ key: "title", tokens: ["intro", "call"], joined: J("intro", "call") }]];
    expect(structuredRecords({ title: "Intro call" })).toEqual(expected);
    expect(structuredRecords('{"title": "Intro call"}')).toEqual(expected);
    expect(structuredRecords("title: Intro call")).toEqual(expected);
  });

  it("rule: the items of a list that are not mappings (lists, scalars) are no records", () => {
    expect(structuredRecords([["Intro call"], { title: "Board" }, "Intro call", null])).toEqual([[{ key: "title", tokens: ["board"], joined: "board" }]]);
  });

  it("rule: a nested leaf sits under its own key; a list's items under the list's key", () => {
    const [record] = structuredRecords([{ organizer: { email: "ann@x.com" }, participants: ["bob@x.com", ["cy@x.com"]] }]);
    expect(record?.map((f) => [f.key, f.joined])).toEqual([
      ["email", "ann@x.com"],
      ["participants", "bob@x.com"],
      ["participants", "cy@x.com"],
    ]);
  });

  it("rule: number and bigint leaves are fields; a leaf with no token is none", () => {
    const [record] = structuredRecords([{ amount: 98.7, id: 12345678901234567890n, note: "", dots: "...", flag: true }]);
    expect(record?.map((f) => [f.key, f.joined])).toEqual([
      ["amount", "98.7"],
      ["id", "12345678901234567890"],
    ]);
  });

  it("rule: leaves up to 64 levels deep in a record are read, deeper ones are not", () => {
    // A record's own values are at depth 1; each mapping or list inside adds one.
    const keys = (nested: unknown): string[] => (structuredRecords([{ title: "Intro", nested }])[0] ?? []).map((f) => f.key);
    expect(keys(inMappings("deep leaf", 63))).toEqual(["title", "a"]);
    expect(keys(inMappings("deep leaf", 64))).toEqual(["title"]);
    expect(keys(inLists("deep leaf", 63))).toEqual(["title", "nested"]);
    expect(keys(inLists("deep leaf", 64))).toEqual(["title"]);
  });
});

describe("names and keys", () => {
  it("rule: a name's words split at case changes and punctuation; a plural s of a word longer than three letters is dropped", () => {
    expect(nameWords("user_email")).toEqual(["user", "email"]);
    expect(nameWords("eventId")).toEqual(["event", "id"]);
    expect(nameWords("file2Name")).toEqual(["file2", "name"]);
    expect(nameWords("__id__")).toEqual(["id"]);
    expect(nameWords("Participants")).toEqual(["participant"]);
    expect(nameWords("bus")).toEqual(["bus"]);
    expect(nameWords("ids")).toEqual(["ids"]);
    expect(nameWords("address")).toEqual(["address"]);
    expect(nameWords("users")).toEqual(["user"]);
  });

  it("rule: a key holds an argument when their last words agree, never for an identifier", () => {
    expect(keyHolds("participants", "participant")).toBe(true);
    expect(keyHolds("recipient_email", "email")).toBe(true);
    expect(keyHolds("email", "email_subject")).toBe(false);
    expect(keyHolds("file_id", "id")).toBe(false);
    expect(keyHolds("fileId", "file_id")).toBe(false);
    expect(keyHolds("__", "__")).toBe(false);
  });

  it("rule: a sentence names a field by the last word of its key, in any token's words", () => {
    expect(fieldNamed("organizer_email", ["her", "email"])).toBe(true);
    expect(fieldNamed("organizer_email", ["the", "organizer"])).toBe(false);
    expect(fieldNamed("participants", ["participant_list"])).toBe(true);
    expect(fieldNamed("participants", ["the", "Participants"])).toBe(true);
    expect(fieldNamed("__", ["__"])).toBe(false);
  });
});
