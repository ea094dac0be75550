import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Guard } from "../../src/guard.js";
import { readStateFile } from "../../src/state/state-file-read.js";
import { FileWatermarkStore } from "../../src/state/watermark-store.js";
import { tempWorkspace } from "../guard/helpers.js";

const OWNER = { id: "+15551234", isOwner: true };
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** Each way `.provenance/` can be bad, set up in a fresh workspace. */
const FAULTS: ReadonlyArray<{ name: string; detail: RegExp; setUp: (dir: string) => Promise<void> | void }> = [
  { name: "truncated", detail: /not JSON/, setUp: (dir) => writeFileSync(join(dir, "watermarks.json"), '{"version":1,"watermarks":{"s":{"level":"trus') },
  { name: "wrong JSON type (an array)", detail: /expected an object/, setUp: (dir) => writeFileSync(join(dir, "watermarks.json"), "[]") },
  { name: "wrong JSON type (null)", detail: /expected an object/, setUp: (dir) => writeFileSync(join(dir, "watermarks.json"), "null") },
  { name: "a directory", detail: /is a directory/, setUp: (dir) => mkdirSync(join(dir, "watermarks.json")) },
  {
    name: "a symbolic link to a valid file elsewhere",
    detail: /symbolic link/,
    setUp: (dir) => {
      const elsewhere = join(tempWorkspace(), "other.json");
      writeFileSync(elsewhere, JSON.stringify({ version: 1, watermarks: {} }));
      symlinkSync(elsewhere, join(dir, "watermarks.json"));
    },
  },
  {
    name: "huge",
    detail: /bytes; a state file is at most/,
    setUp: (dir) => {
      const fd = openSync(join(dir, "watermarks.json"), "w");
      // Sparse: 64 MiB and a byte, the first size over the limit, without writing it.
      ftruncateSync(fd, 64 * 1024 * 1024 + 1);
      closeSync(fd);
    },
  },
  {
    name: "unreadable (a socket)",
    detail: /not a regular file/,
    setUp: (dir) =>
      new Promise<void>((resolve) => {
        const server = createServer();
        servers.push(server);
        server.listen(join(dir, "watermarks.json"), () => resolve());
      }),
  },
  { name: "not UTF-8", detail: /not valid UTF-8/, setUp: (dir) => writeFileSync(join(dir, "watermarks.json"), Buffer.from([0x7b, 0xff, 0xfe, 0x7d])) },
  { name: "quarantine.json a directory", detail: /quarantine\.json is a directory/, setUp: (dir) => mkdirSync(join(dir, "quarantine.json")) },
  { name: "the lock a directory", detail: /not a lock file/, setUp: (dir) => mkdirSync(join(dir, "watermarks.json.lock")) },
];

describe("every state-file failure is quarantined, not thrown", () => {
  for (const fault of FAULTS) {
    it(`watermark state ${fault.name}: the guard opens, every session is untrusted, the fault is reported by name`, async () => {
      const ws = tempWorkspace();
      const dir = join(ws, ".provenance");
      mkdirSync(dir);
      await fault.setUp(dir);
      const corrupt: string[] = [];
      const errors: string[] = [];
      const guard = Guard.open({ workspaceDir: ws, logger: { info() {}, warn() {}, error: (m) => errors.push(m) } });
      guard.beginTurn({ sessionId: "never-seen", sender: OWNER, provider: "telegram", text: "hi" });
      expect(guard.taint("never-seen")).toBe("untrusted");
      expect(guard.beforeToolCall("never-seen", { tool: "exec", params: {} }).verdict).toBe("confirm");
      expect(errors.join("\n")).toMatch(fault.detail);
      corrupt.push(...errors);
      guard.close();
    });
  }

  it("a symbolic link is never followed: the file it pointed at is untouched and the link is set aside", () => {
    const ws = tempWorkspace();
    const dir = join(ws, ".provenance");
    mkdirSync(dir);
    const elsewhere = join(tempWorkspace(), "victim.json");
    writeFileSync(elsewhere, "precious");
    symlinkSync(elsewhere, join(dir, "watermarks.json"));
    const store = new FileWatermarkStore(ws);
    store.escalate("s", "untrusted", "web_fetch response", "web_fetch", new Date());
    store.close();
    expect(readFileSync(elsewhere, "utf8")).toBe("precious");
    expect(readdirSync(dir).some((n) => n.startsWith("watermarks.json.corrupt-"))).toBe(true);
  });

  it("the owner's reset lifts the quarantine for that session only", () => {
    const ws = tempWorkspace();
    const dir = join(ws, ".provenance");
    mkdirSync(dir);
    mkdirSync(join(dir, "watermarks.json"));
    const guard = Guard.open({ workspaceDir: ws });
    guard.beginTurn({ sessionId: "a", sender: OWNER, provider: "telegram", text: ".reset-trust" });
    guard.endTurn("a");
    guard.beginTurn({ sessionId: "a", sender: OWNER, provider: "telegram", text: "hi" });
    guard.beginTurn({ sessionId: "b", sender: OWNER, provider: "telegram", text: "hi" });
    expect(guard.taint("a")).toBe("trusted");
    expect(guard.taint("b")).toBe("untrusted");
    guard.close();
    expect(existsSync(join(dir, "quarantine.json"))).toBe(true);
  });

  it("a watermarks.json found corrupt again voids the owner's earlier resets: those sessions are untrusted too", () => {
    const ws = tempWorkspace();
    const dir = join(ws, ".provenance");
    mkdirSync(dir);
    writeFileSync(join(dir, "watermarks.json"), "{");
    const first = new FileWatermarkStore(ws);
    first.reset("a", "trusted", "owner", new Date("2026-02-10T20:40:00.000Z"));
    first.close();
    expect(new FileWatermarkStore(ws).get("a")?.level).toBe("trusted");
    writeFileSync(join(dir, "watermarks.json"), "");
    expect(new FileWatermarkStore(ws).get("a")?.level).toBe("untrusted");
  });

  it("a .provenance that is a file: the guard still opens and holds every session untrusted", () => {
    const ws = tempWorkspace();
    writeFileSync(join(ws, ".provenance"), "not a directory");
    const store = new FileWatermarkStore(ws);
    expect(store.get("anyone")?.level).toBe("untrusted");
    expect(store.corruption()[0]?.message).toMatch(/state directory cannot be used/);
  });
});

describe("a state file's size bound", () => {
  it("a file of exactly the bound is read whole; one byte more is refused with its size", () => {
    const file = join(tempWorkspace(), "state.json");
    writeFileSync(file, "1234");
    expect(readStateFile(file, 4)).toEqual({ kind: "ok", text: "1234" });
    writeFileSync(file, "12345");
    expect(readStateFile(file, 4)).toEqual({ kind: "bad", detail: "is 5 bytes; a state file is at most 4" });
    expect(readStateFile(join(file, "missing"), 4)).toMatchObject({ kind: "bad", detail: "cannot be examined: a parent of it is not a directory" });
    expect(readStateFile(`${file}.gone`, 4)).toEqual({ kind: "missing" });
  });
});
