import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { TurnMessages } from "../../../src/adapters/claude-code/turn-messages.js";
import { readStateFile, type StateFileRead } from "../../../src/state/state-file-read.js";

const made: string[] = [];
const project = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "provenant-turn-messages-"));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const isJson = (read: StateFileRead): boolean => {
  try {
    JSON.parse(read.kind === "ok" ? read.text : "");
    return true;
  } catch {
    return false;
  }
};
const countDir = (dir: string) => join(dir, ".provenance", "claude-code-turns");
/** The one count file of a project with one session. */
const countFile = (dir: string) => join(countDir(dir), readdirSync(countDir(dir))[0] ?? "");

describe("TurnMessages: the messages sent into a running turn, counted in the project's state", () => {
  it("counts each further prompt of the running turn's id, per session, starts again with a new prompt, and forgets a session that ended", () => {
    const dir = project();
    const turns = new TurnMessages(dir);
    expect(turns.queuedInto("s1", "p1")).toBe(0);
    turns.submitted("s1", "p1");
    expect(turns.queuedInto("s1", "p1")).toBe(0);
    turns.submitted("s1", "p1");
    turns.submitted("s1", "p1");
    turns.submitted("s2", "p1");
    // Another process reads what this one counted.
    expect(new TurnMessages(dir).queuedInto("s1", "p1")).toBe(2);
    expect(turns.queuedInto("s2", "p1")).toBe(0);
    expect(turns.queuedInto("s1", "p0")).toBe(0);
    turns.submitted("s1", "p2");
    expect(turns.queuedInto("s1", "p2")).toBe(0);
    expect(turns.queuedInto("s1", "p1")).toBe(0);
    turns.forget("s1");
    turns.forget("s1");
    expect(turns.queuedInto("s1", "p2")).toBe(0);
    expect(readdirSync(countDir(dir))).toHaveLength(1);
    // A count that cannot be removed is an error, not a count forgotten.
    rmSync(countFile(dir));
    mkdirSync(join(countDir(dir), "x"));
    turns.submitted("s3", "p1");
    const file = readdirSync(countDir(dir)).find((n) => n !== "x") ?? "";
    rmSync(join(countDir(dir), file));
    mkdirSync(join(countDir(dir), file));
    expect(() => turns.forget("s3")).toThrow();
  });

  it("names a session's file by a digest: a session id that looks like a path stays inside the state directory", () => {
    const dir = project();
    const turns = new TurnMessages(dir);
    turns.submitted("../../escaped", "p1");
    turns.submitted("../../escaped", "p1");
    expect(turns.queuedInto("../../escaped", "p1")).toBe(1);
    expect(readdirSync(countDir(dir))).toEqual([expect.stringMatching(/^[0-9a-f]{32}\.json$/)]);
    expect(existsSync(join(dir, "escaped"))).toBe(false);
  });

  it("throws, naming the file, for a count that is not one: garbage, a wrong shape, a symbolic link, a directory, an oversized file", () => {
    for (const plant of [
      (f: string) => writeFileSync(f, "not json ".repeat(100)),
      (f: string) => writeFileSync(f, '{"promptId":"p1","queued":-1}'),
      (f: string) => writeFileSync(f, '{"promptId":"p1","queued":1.5}'),
      (f: string) => writeFileSync(f, '{"promptId":"","queued":0}'),
      (f: string) => writeFileSync(f, "null"),
      (f: string) => writeFileSync(f, `{"promptId":"p1","queued":0,"pad":"${"x".repeat(5000)}"}`),
      (f: string) => writeFileSync(f, `{"promptId":"p1","queued":-1,"pad":"${"x".repeat(1000)}"}`),
      (f: string) => {
        writeFileSync(`${f}.target`, '{"promptId":"p1","queued":0}');
        symlinkSync(`${f}.target`, f);
      },
      (f: string) => mkdirSync(f),
    ]) {
      const dir = project();
      const turns = new TurnMessages(dir);
      turns.submitted("s1", "p1");
      const file = countFile(dir);
      rmSync(file);
      plant(file);
      expect(() => turns.queuedInto("s1", "p1")).toThrow(/^the count of messages sent into the running turn \(.*claude-code-turns.*\) /);
      let message = "";
      try {
        turns.queuedInto("s1", "p1");
      } catch (error) {
        message = (error as Error).message;
      }
      // What the file held is quoted, at most 200 characters of it; text that is not JSON is named so.
      expect(message.length).toBeLessThan(file.length + 320);
      if (readStateFile(file).kind === "ok" && !isJson(readStateFile(file))) expect(message).toMatch(/\) is not JSON$/);
      // Counting on from a count that cannot be read is refused too: it is never reset to none.
      expect(() => turns.submitted("s1", "p1")).toThrow(/the count of messages sent into the running turn/);
    }
  });

  it("reads any file content as a count it wrote or an error, never a negative or fractional count", () => {
    const dir = project();
    const turns = new TurnMessages(dir);
    turns.submitted("s1", "p1");
    const file = countFile(dir);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.record({ promptId: fc.oneof(fc.constant("p1"), fc.string()), queued: fc.oneof(fc.integer(), fc.double(), fc.string()) }).map((v) => JSON.stringify(v))), (text) => {
        writeFileSync(file, text);
        let count: number;
        try {
          count = turns.queuedInto("s1", "p1");
        } catch (error) {
          expect((error as Error).message).toMatch(/^the count of messages sent into the running turn/);
          return;
        }
        expect(Number.isSafeInteger(count) && count >= 0).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("sweeps the counts of sessions left untouched for a week, and keeps the rest", () => {
    const dir = project();
    const turns = new TurnMessages(dir);
    turns.submitted("old", "p1");
    const old = countFile(dir);
    turns.submitted("new", "p1");
    const now = new Date();
    const eightDaysAgo = new Date(now.getTime() - 8 * 24 * 60 * 60 * 1000);
    utimesSync(old, eightDaysAgo, eightDaysAgo);
    turns.sweep(now);
    expect(readdirSync(countDir(dir))).toHaveLength(1);
    expect(existsSync(old)).toBe(false);
    // Exactly a week untouched is not yet past it.
    const seconds = Math.floor(now.getTime() / 1000);
    utimesSync(countFile(dir), seconds, seconds);
    turns.sweep(new Date(seconds * 1000 + 7 * 24 * 60 * 60 * 1000));
    expect(readdirSync(countDir(dir))).toHaveLength(1);
    // A project with no counts yet: nothing to sweep.
    new TurnMessages(project()).sweep(now);
  });
});
