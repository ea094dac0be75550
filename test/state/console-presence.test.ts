import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ConsoleHeartbeat, HEARTBEAT_FRESH_MS, someoneIsWatching } from "../../src/state/console-presence.js";
import { PendingApprovalStore } from "../../src/state/pending-approval-store.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function store(): PendingApprovalStore {
  const ws = mkdtempSync(join(tmpdir(), "provenant-presence-"));
  dirs.push(ws);
  return new PendingApprovalStore(ws);
}

/** A pid that is certainly not running: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

function plant(s: PendingApprovalStore, name: string, content: string, mtime = Date.now()): string {
  const dir = join(s.dir, "watchers");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, content);
  utimesSync(path, new Date(mtime), new Date(mtime));
  return path;
}

const record = (pid: number) => JSON.stringify({ version: 2, pid, kind: "console", startedAt: new Date().toISOString() });

describe("console presence", () => {
  it("a beating console is watching; a stopped one, or one that stopped beating, is not", () => {
    const s = store();
    expect(someoneIsWatching(s, Date.now())).toBe(false);
    const hb = new ConsoleHeartbeat(s);
    hb.beat(Date.now());
    expect(someoneIsWatching(s, Date.now())).toBe(true);
    expect(someoneIsWatching(s, Date.now() + HEARTBEAT_FRESH_MS + 1000)).toBe(false);
    hb.beat(Date.now() + HEARTBEAT_FRESH_MS);
    expect(someoneIsWatching(s, Date.now() + HEARTBEAT_FRESH_MS + 1000)).toBe(true);
    hb.stop();
    expect(existsSync(join(s.dir, "watchers", `${process.pid}.json`))).toBe(false);
    expect(someoneIsWatching(s, Date.now())).toBe(false);
    // A heartbeat removed by someone else is written again on the next beat.
    hb.beat(Date.now());
    rmSync(join(s.dir, "watchers", `${process.pid}.json`));
    hb.beat(Date.now());
    expect(someoneIsWatching(s, Date.now())).toBe(true);
    hb.stop();
  });

  it("ignores a fresh heartbeat of a dead process, a beat from the future, and one whose name is not its pid", () => {
    const s = store();
    const dead = deadPid();
    plant(s, `${dead}.json`, record(dead));
    expect(someoneIsWatching(s, Date.now())).toBe(false);
    plant(s, `${process.pid}.json`, record(process.pid), Date.now() + 10 * HEARTBEAT_FRESH_MS);
    expect(someoneIsWatching(s, Date.now())).toBe(false);
    rmSync(join(s.dir, "watchers", `${process.pid}.json`));
    plant(s, "1.json", record(process.pid));
    expect(someoneIsWatching(s, Date.now())).toBe(false);
  });

  it("hostile files: a symbolic link, a huge file, a directory, non-JSON, a wrong shape: none counts, none throws", () => {
    const s = store();
    const elsewhere = join(mkdtempSync(join(tmpdir(), "provenant-presence-target-")), "hb.json");
    dirs.push(join(elsewhere, ".."));
    writeFileSync(elsewhere, record(process.pid));
    mkdirSync(join(s.dir, "watchers"), { recursive: true });
    symlinkSync(elsewhere, join(s.dir, "watchers", `${process.pid}.json`));
    expect(someoneIsWatching(s, Date.now())).toBe(false);
    rmSync(join(s.dir, "watchers", `${process.pid}.json`));
    plant(s, `${process.pid}.json`, `${record(process.pid)}${" ".repeat(64 * 1024)}`);
    expect(someoneIsWatching(s, Date.now())).toBe(false);
    plant(s, `${process.pid}.json`, "{not json");
    expect(someoneIsWatching(s, Date.now())).toBe(false);
    plant(s, `${process.pid}.json`, JSON.stringify({ version: 2, pid: process.pid, kind: "console", startedAt: "x", approve: true }));
    expect(someoneIsWatching(s, Date.now())).toBe(false);
    rmSync(join(s.dir, "watchers", `${process.pid}.json`));
    mkdirSync(join(s.dir, "watchers", `${process.pid}.json`));
    expect(someoneIsWatching(s, Date.now())).toBe(false);
    // The watchers path itself a file: nobody watching, no throw.
    const t = store();
    mkdirSync(t.dir, { recursive: true });
    writeFileSync(join(t.dir, "watchers"), "x");
    expect(someoneIsWatching(t, Date.now())).toBe(false);
  });

  it("fuzz: any bytes in a fresh heartbeat named for this live process count only when they are the record itself", () => {
    const s = store();
    const valid = record(process.pid);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
          fc.string({ maxLength: 200 }).map((t) => Buffer.from(t)),
          // Near misses of the real record: one character dropped, duplicated or replaced.
          fc.tuple(fc.nat(valid.length - 1), fc.constantFrom("", "\"", "}", "0", "\u0000", "\\")).map(([i, c]) => Buffer.from(valid.slice(0, i) + c + valid.slice(i + 1))),
        ),
        (bytes) => {
          const path = join(s.dir, "watchers", `${process.pid}.json`);
          mkdirSync(join(s.dir, "watchers"), { recursive: true });
          writeFileSync(path, bytes);
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(bytes.toString("utf8"));
          } catch {
            parsed = null;
          }
          const isRecord =
            typeof parsed === "object" && parsed !== null && Object.keys(parsed).sort().join() === "kind,pid,startedAt,version" &&
            (parsed as { pid: unknown }).pid === process.pid && (parsed as { version: unknown }).version === 2 &&
            typeof (parsed as { kind: unknown }).kind === "string" && (parsed as { kind: string }).kind.length > 0 && (parsed as { kind: string }).kind.length <= 100 &&
            typeof (parsed as { startedAt: unknown }).startedAt === "string" && !Number.isNaN(Date.parse((parsed as { startedAt: string }).startedAt));
          const watching = someoneIsWatching(s, Date.now());
          if (!isRecord) expect(watching).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a heartbeat planted by the agent approves nothing: it only makes a holder wait", () => {
    const s = store();
    s.hold({
      version: 2,
      code: "0123abcd",
      frontEnd: "mcp",
      origin: "fs",
      sessionId: "mcp",
      tool: "mcp__fs__write_file",
      call: "mcp__fs__write_file {}",
      reason: "held",
      taint: "untrusted",
      source: null,
      arguments: null,
      createdAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      waitingUntil: null,
      pid: process.pid,
    });
    plant(s, `${process.pid}.json`, record(process.pid));
    expect(someoneIsWatching(s, Date.now())).toBe(true);
    expect(s.answerFor("0123abcd")).toBeNull();
    expect(s.list(Date.now()).map((e) => e.answer)).toEqual([null]);
  });
});

describe("console presence at its edges", () => {
  it("a beat exactly as old (or as far ahead) as the freshness window counts; a millisecond more does not", () => {
    const s = store();
    const at = Math.floor(Date.now() / 1000) * 1000; // whole seconds: every file system keeps them exactly
    plant(s, `${process.pid}.json`, record(process.pid), at);
    expect(someoneIsWatching(s, at + HEARTBEAT_FRESH_MS)).toBe(true);
    expect(someoneIsWatching(s, at + HEARTBEAT_FRESH_MS + 1)).toBe(false);
    expect(someoneIsWatching(s, at - HEARTBEAT_FRESH_MS)).toBe(true);
    expect(someoneIsWatching(s, at - HEARTBEAT_FRESH_MS - 1)).toBe(false);
  });

  it("a later beat refreshes the file's time without writing it again; the record keeps its start", () => {
    const s = store();
    const hb = new ConsoleHeartbeat(s, "console");
    const start = Math.floor(Date.now() / 1000) * 1000;
    hb.beat(start);
    const path = join(s.dir, "watchers", `${process.pid}.json`);
    const first = readFileSync(path, "utf8");
    hb.beat(start + 3000);
    expect(readFileSync(path, "utf8")).toBe(first);
    expect(statSync(path).mtimeMs).toBe(start + 3000);
    expect(JSON.parse(first)).toMatchObject({ version: 2, pid: process.pid, kind: "console", startedAt: new Date(start).toISOString() });
    hb.stop();
    hb.stop(); // twice: nothing left to remove, no error
  });
});
