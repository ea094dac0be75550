import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { spawn, spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TRUST_LEVELS, TrustLevelError, trustRank } from "../../src/core/trust-levels.js";
import type { TrustLevel } from "../../src/core/trust-levels.js";
import { CorruptStateError } from "../../src/state/quarantine.js";
import { parseWatermarkFile } from "../../src/state/watermark-file.js";
import { FileWatermarkStore, MAX_RESET_HISTORY, StoreClosedError } from "../../src/state/watermark-store.js";
import type { FileWatermarkStoreOptions } from "../../src/state/watermark-store.js";
import { LockTimeoutError } from "../../src/state/file-lock.js";

let ws: string;
const open: FileWatermarkStore[] = [];
const T0 = new Date("2026-02-10T20:15:00.000Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function store(options: FileWatermarkStoreOptions = {}): FileWatermarkStore {
  const s = new FileWatermarkStore(ws, { clock: () => at(999), ...options });
  open.push(s);
  return s;
}

const file = () => join(ws, ".provenance", "watermarks.json");
const readDoc = () => JSON.parse(readFileSync(file(), "utf8")) as { version: number; watermarks: Record<string, Record<string, unknown>> };

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), "provenant-wm-"));
});

afterEach(() => {
  for (const s of open.splice(0)) s.close();
  rmSync(ws, { recursive: true, force: true });
});

describe("FileWatermarkStore", () => {
  it("starts empty and creates .provenance/ without writing a watermark file", () => {
    const s = store();
    expect(s.get("session:a")).toBeUndefined();
    expect(existsSync(join(ws, ".provenance"))).toBe(true);
    expect(existsSync(file())).toBe(false);
  });

  it("removes temporary files left by a killed writer", () => {
    mkdirSync(join(ws, ".provenance"));
    const stale = join(ws, ".provenance", `.watermarks.json.${2 ** 22 + 7}.0123456789ab.tmp`);
    writeFileSync(stale, "{ half");
    store();
    expect(existsSync(stale)).toBe(false);
  });

  it("only escalates", () => {
    const s = store();
    expect(s.escalate("session:a", "trusted", "owner DM", "history", at(0))).toBe(false);
    expect(s.get("session:a")).toBeUndefined();
    expect(s.escalate("session:a", "shared", "vestige", "vestige_search", at(1))).toBe(true);
    expect(s.escalate("session:a", "trusted", "read", "read", at(2))).toBe(false);
    expect(s.escalate("session:a", "shared", "again", "vestige_search", at(3))).toBe(false);
    expect(s.escalate("session:a", "untrusted", "web_fetch response", "web_fetch", at(4))).toBe(true);
    expect(s.escalate("session:a", "external", "mail", "gog", at(5))).toBe(false);
    expect(s.get("session:a")).toEqual({
      level: "untrusted",
      reason: "web_fetch response",
      escalatedAt: "2026-02-10T20:15:04.000Z",
      escalatedBy: "web_fetch",
      lastImpactedTool: null,
      resetHistory: [],
    });
  });

  it("writes the seed's exact format, durable before escalate returns", () => {
    const s = store();
    s.escalate("session:abc123", "untrusted", "web_fetch response", "web_fetch", T0);
    // No flush, no close: the file already says so.
    expect(readDoc()).toEqual({
      version: 1,
      watermarks: {
        "session:abc123": {
          level: "untrusted",
          reason: "web_fetch response",
          escalatedAt: "2026-02-10T20:15:00.000Z",
          escalatedBy: "web_fetch",
          lastImpactedTool: null,
          resetHistory: [],
        },
      },
    });
    expect(Object.keys(readDoc().watermarks["session:abc123"] ?? {})).toEqual([
      "level",
      "reason",
      "escalatedAt",
      "escalatedBy",
      "lastImpactedTool",
      "resetHistory",
    ]);
  });

  it("loads the seed's own example file", () => {
    mkdirSync(join(ws, ".provenance"));
    writeFileSync(
      file(),
      JSON.stringify({
        version: 1,
        watermarks: {
          "session:abc123": {
            level: "untrusted",
            reason: "web_fetch response",
            escalatedAt: "2026-02-10T20:15:00.000Z",
            escalatedBy: "web_fetch",
            lastImpactedTool: "exec",
            resetHistory: [],
          },
        },
      }),
    );
    const s = store();
    expect(s.corruption()).toEqual([]);
    expect(s.get("session:abc123")?.level).toBe("untrusted");
    expect(s.get("session:abc123")?.lastImpactedTool).toBe("exec");
  });

  it("survives a restart", () => {
    const a = store();
    a.escalate("s1", "external", "slack", "message", at(0));
    a.escalate("s2", "shared", "vestige", "vestige_search", at(1));
    const b = store();
    expect(b.get("s1")?.level).toBe("external");
    expect(b.get("s2")?.level).toBe("shared");
  });

  it("debounces and coalesces noteImpacted, and shows it at once in memory", async () => {
    const s = store({ debounceMs: 30 });
    s.escalate("s1", "untrusted", "web", "web_fetch", at(0));
    s.noteImpacted("s1", "exec");
    s.noteImpacted("s1", "browser");
    expect(s.get("s1")?.lastImpactedTool).toBe("browser");
    expect(readDoc().watermarks.s1?.lastImpactedTool).toBeNull();
    await vi.waitFor(() => expect(readDoc().watermarks.s1?.lastImpactedTool).toBe("browser"), { timeout: 10_000, interval: 5 });
  });

  it("flush writes pending notes now; close flushes; a note without a watermark is not persisted", () => {
    const s = store({ debounceMs: 60_000 });
    s.escalate("s1", "untrusted", "web", "web_fetch", at(0));
    s.noteImpacted("s1", "exec");
    s.noteImpacted("nobody", "exec");
    s.flush();
    expect(readDoc().watermarks.s1?.lastImpactedTool).toBe("exec");
    s.noteImpacted("s1", "message");
    s.close();
    expect(readDoc().watermarks.s1?.lastImpactedTool).toBe("message");
    expect(readDoc().watermarks.nobody).toBeUndefined();
    expect(() => s.escalate("s1", "untrusted", "x", "y", at(1))).toThrow(StoreClosedError);
  });

  it("reset sets the level, records history and is durable", () => {
    const s = store();
    s.escalate("s1", "untrusted", "web", "web_fetch", at(0));
    s.reset("s1", "shared", "owner", at(10));
    expect(s.get("s1")).toMatchObject({ level: "shared", escalatedBy: "owner", lastImpactedTool: null });
    expect(s.escalate("s1", "shared", "x", "y", at(11))).toBe(false);
    expect(s.escalate("s1", "external", "mail", "gog", at(12))).toBe(true);
    s.reset("s1", "trusted", "owner", at(20));
    const reopened = store();
    expect(reopened.get("s1")?.level).toBe("trusted");
    expect(reopened.get("s1")?.resetHistory).toEqual([
      { resetAt: "2026-02-10T20:15:10.000Z", resetBy: "owner", previousLevel: "untrusted", newLevel: "shared" },
      { resetAt: "2026-02-10T20:15:20.000Z", resetBy: "owner", previousLevel: "external", newLevel: "trusted" },
    ]);
  });

  it("keeps the last resets only", () => {
    const s = store();
    for (let i = 0; i < MAX_RESET_HISTORY + 5; i += 1) s.reset("s1", "trusted", `owner${i}`, at(i));
    const history = store().get("s1")?.resetHistory ?? [];
    expect(history).toHaveLength(MAX_RESET_HISTORY);
    expect(history[0]?.resetBy).toBe("owner5");
  });

  it("clear forgets the session durably", () => {
    const s = store();
    s.escalate("s1", "untrusted", "web", "web_fetch", at(0));
    s.escalate("s2", "external", "mail", "gog", at(0));
    s.clear("s1");
    expect(s.get("s1")).toBeUndefined();
    expect(Object.keys(readDoc().watermarks)).toEqual(["s2"]);
    expect(store().get("s1")).toBeUndefined();
  });

  it("stores awkward session ids as plain keys", () => {
    const s = store();
    for (const id of ["__proto__", "constructor", "toString", "session:\u{1F600}", "a\"b\\c"]) s.escalate(id, "external", "x", "y", at(0));
    const reopened = store();
    expect(reopened.corruption()).toEqual([]);
    expect(reopened.get("__proto__")?.level).toBe("external");
    expect(reopened.get("constructor")?.level).toBe("external");
    expect(reopened.get("hasOwnProperty")).toBeUndefined();
  });

  it("refuses bad arguments precisely", () => {
    const s = store();
    expect(() => s.escalate("", "untrusted", "x", "y", at(0))).toThrow(/sessionId/);
    expect(() => s.escalate("s", "evil" as TrustLevel, "x", "y", at(0))).toThrow(TrustLevelError);
    expect(() => s.reset("s", "admin" as TrustLevel, "owner", at(0))).toThrow(TrustLevelError);
    expect(() => s.escalate("s", "untrusted", "x", "y", new Date(Number.NaN))).toThrow(/valid Date/);
    expect(existsSync(file())).toBe(false);
  });

  it("two instances (two processes' views) never undo each other's changes", () => {
    const a = store();
    const b = store();
    a.escalate("s1", "untrusted", "web", "web_fetch", at(0));
    b.escalate("s2", "external", "mail", "gog", at(1)); // b had not seen s1
    expect(Object.keys(readDoc().watermarks).sort()).toEqual(["s1", "s2"]);
    b.reset("s1", "trusted", "owner", at(2)); // b learns s1 under the lock, then resets it
    a.escalate("s3", "shared", "v", "vestige_search", at(3)); // a's stale view of s1 must not come back
    const doc = readDoc().watermarks;
    expect(doc.s1?.level).toBe("trusted");
    expect(doc.s2?.level).toBe("external");
    expect(doc.s3?.level).toBe("shared");
    // a sees b's reset once it has written; escalating s1 again then works on the fresh state.
    expect(a.get("s1")?.level).toBe("trusted");
    expect(a.escalate("s1", "external", "mail", "gog", at(4))).toBe(true);
  });

  it("an escalation by another process is not lost when this one believes it is already higher", () => {
    const a = store();
    const b = store();
    a.escalate("s1", "untrusted", "web", "web_fetch", at(0));
    b.reset("s1", "trusted", "owner", at(1)); // a still believes s1 untrusted
    expect(a.escalate("s1", "untrusted", "web again", "web_fetch", at(2))).toBe(true);
    expect(readDoc().watermarks.s1?.level).toBe("untrusted");
  });

  it("an escalation never lowers a level another process raised since this one last read", () => {
    const a = store();
    const b = store();
    expect(a.get("s1")).toBeUndefined();
    b.escalate("s1", "untrusted", "web", "web_fetch", at(0));
    // a still believes s1 trusted: its external would be a raise, but on disk s1 is untrusted.
    expect(a.escalate("s1", "external", "mail", "gog", at(1))).toBe(false);
    expect(readDoc().watermarks.s1?.level).toBe("untrusted");
    expect(a.get("s1")?.level).toBe("untrusted");
  });

  it("refresh picks up another process's escalation, reset and quarantine, and reads nothing when nothing changed", () => {
    const a = store();
    const b = store();
    b.escalate("s1", "untrusted", "web", "web_fetch", at(0));
    expect(a.get("s1")).toBeUndefined();
    a.refresh();
    expect(a.get("s1")?.level).toBe("untrusted");
    b.reset("s1", "shared", "owner", at(1));
    a.refresh();
    expect(a.get("s1")).toMatchObject({ level: "shared", reason: "reset to shared by owner", escalatedBy: "owner" });
    // A corrupt file another process found (and quarantined) holds every session here too.
    writeFileSync(file(), "{ not json");
    b.refresh();
    a.refresh();
    expect(a.get("s1")?.level).toBe("untrusted");
    expect(a.get("s9")?.level).toBe("untrusted");
    expect(a.quarantine()).not.toBeNull();
  });

  it("an owner's reset of one session in quarantine keeps the others' resets", () => {
    const s = store();
    s.escalate("s1", "external", "mail", "gog", at(0));
    writeFileSync(file(), "{ not json");
    s.refresh();
    s.reset("s1", "trusted", "owner", at(1));
    s.reset("s2", "trusted", "owner", at(2));
    expect(s.get("s1")?.level).toBe("trusted");
    expect(s.get("s2")?.level).toBe("trusted");
    expect(s.get("s3")?.level).toBe("untrusted");
    expect(Object.keys(s.quarantine()?.cleared ?? {}).sort()).toEqual(["s1", "s2"]);
    expect(s.get("s3")?.reason).toMatch(/^watermark state quarantined since .*: watermarks\.json was corrupt \(kept as .*\); the owner must reset this session$/);
  });

  it("refuses arguments of the wrong type, and calls on a closed store", () => {
    const s = store();
    expect(() => s.escalate(7 as unknown as string, "untrusted", "x", "y", at(0))).toThrow(new TypeError("sessionId must be a non-empty string"));
    expect(() => s.escalate("s", "untrusted", 7 as unknown as string, "y", at(0))).toThrow(new TypeError("reason must be a string"));
    expect(() => s.escalate("s", "untrusted", "x", null as unknown as string, at(0))).toThrow(new TypeError("escalatedBy must be a string"));
    expect(() => s.noteImpacted("s", 1 as unknown as string)).toThrow(new TypeError("tool must be a string"));
    expect(() => s.reset("s", "trusted", {} as unknown as string, at(0))).toThrow(new TypeError("by must be a string"));
    s.close();
    const closed = new StoreClosedError();
    expect([closed.name, closed.message]).toEqual(["StoreClosedError", "the watermark store is closed"]);
    expect(() => s.escalate("s", "untrusted", "x", "y", at(0))).toThrow(StoreClosedError);
  });

  it("breaks a lock left by a killed process, and times out on a live holder", () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const lock = join(ws, ".provenance", "watermarks.json.lock");
    mkdirSync(join(ws, ".provenance"));
    writeFileSync(lock, `${dead.stdout}\n`);
    const s = store();
    s.escalate("s1", "untrusted", "web", "web_fetch", at(0));
    expect(existsSync(lock)).toBe(false);

    const impatient = store({ lockTimeoutMs: 50 });
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 10000)"], { stdio: "ignore" });
    try {
      writeFileSync(lock, `${holder.pid}\n`);
      expect(() => impatient.escalate("s2", "untrusted", "web", "web_fetch", at(1))).toThrow(LockTimeoutError);
      unlinkSync(lock);
      impatient.escalate("s2", "untrusted", "web", "web_fetch", at(1));
      expect(readDoc().watermarks.s2?.level).toBe("untrusted");
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("keeps the level implied by any sequence of operations, in memory and on disk", () => {
    type Op =
      | { kind: "escalate"; session: number; level: TrustLevel }
      | { kind: "reset"; session: number; level: TrustLevel }
      | { kind: "clear"; session: number }
      | { kind: "note"; session: number }
      | { kind: "flush" }
      | { kind: "reopen" };
    const level = fc.constantFrom(...TRUST_LEVELS);
    const session = fc.integer({ min: 0, max: 3 });
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant("escalate" as const), session, level }),
      fc.record({ kind: fc.constant("reset" as const), session, level }),
      fc.record({ kind: fc.constant("clear" as const), session }),
      fc.record({ kind: fc.constant("note" as const), session }),
      fc.constant({ kind: "flush" as const }),
      fc.constant({ kind: "reopen" as const }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        rmSync(join(ws, ".provenance"), { recursive: true, force: true });
        let s = new FileWatermarkStore(ws, { debounceMs: 60_000 });
        const model = new Map<number, TrustLevel>();
        ops.forEach((o, i) => {
          const id = `s${"session" in o ? o.session : 0}`;
          switch (o.kind) {
            case "escalate": {
              const before = model.get(o.session) ?? "trusted";
              const changed = s.escalate(id, o.level, "r", "tool", at(i));
              expect(changed).toBe(trustRank(o.level) > trustRank(before));
              if (changed) model.set(o.session, o.level);
              break;
            }
            case "reset":
              s.reset(id, o.level, "owner", at(i));
              model.set(o.session, o.level);
              break;
            case "clear":
              s.clear(id);
              model.delete(o.session);
              break;
            case "note":
              s.noteImpacted(id, "exec");
              break;
            case "flush":
              s.flush();
              break;
            case "reopen":
              s.close();
              s = new FileWatermarkStore(ws, { debounceMs: 60_000 });
              break;
          }
        });
        const onDisk = existsSync(file()) ? parseWatermarkFile(readFileSync(file(), "utf8")) : new Map();
        const fresh = new FileWatermarkStore(ws);
        for (let k = 0; k < 4; k += 1) {
          expect(s.get(`s${k}`)?.level).toBe(model.get(k));
          expect(onDisk.get(`s${k}`)?.level).toBe(model.get(k));
          expect(fresh.get(`s${k}`)?.level).toBe(model.get(k));
        }
        s.close();
        fresh.close();
      }),
      { numRuns: 150 },
    );
  });
});

describe("corrupt watermark state", () => {
  const valid = {
    level: "untrusted",
    reason: "web",
    escalatedAt: "2026-02-10T20:15:00.000Z",
    escalatedBy: "web_fetch",
    lastImpactedTool: null,
    resetHistory: [],
  };
  const corruptions: Record<string, string> = {
    "bad JSON": "{ \"version\": 1, \"watermarks\": {",
    "empty file": "",
    "wrong version": JSON.stringify({ version: 2, watermarks: {} }),
    "bad level": JSON.stringify({ version: 1, watermarks: { s: { ...valid, level: "admin" } } }),
    "not an object": JSON.stringify([1, 2]),
    "watermarks is an array": JSON.stringify({ version: 1, watermarks: [] }),
    "missing key": JSON.stringify({ version: 1, watermarks: { s: { level: "trusted" } } }),
    "extra key": JSON.stringify({ version: 1, watermarks: { s: { ...valid, trustedForever: true } } }),
    "number as tool": JSON.stringify({ version: 1, watermarks: { s: { ...valid, lastImpactedTool: 7 } } }),
    "bad time": JSON.stringify({ version: 1, watermarks: { s: { ...valid, escalatedAt: "yesterday" } } }),
    "bad reset entry": JSON.stringify({ version: 1, watermarks: { s: { ...valid, resetHistory: [{ resetAt: 1 }] } } }),
    "empty session id": JSON.stringify({ version: 1, watermarks: { "": valid } }),
    "binary junk": "\u0000\u00ff\u0001garbage",
  };

  function plant(content: string): void {
    mkdirSync(join(ws, ".provenance"), { recursive: true });
    writeFileSync(file(), content);
  }

  for (const [name, content] of Object.entries(corruptions)) {
    it(`quarantines on ${name}`, () => {
      plant(content);
      const reports: CorruptStateError[] = [];
      const logs: string[] = [];
      const s = store({ onCorrupt: (e) => reports.push(e), log: (m) => logs.push(m) });
      expect(reports).toHaveLength(1);
      const report = reports[0];
      expect(report).toBeInstanceOf(CorruptStateError);
      expect(report?.file).toBe("watermarks.json");
      expect(report?.movedTo).toBe("watermarks.json.corrupt-2026-02-10T20-31-39.000Z");
      expect(s.corruption()).toEqual(reports);
      expect(logs.join("\n")).toContain("moved aside");
      expect(readFileSync(join(ws, ".provenance", report?.movedTo ?? ""), "utf8")).toBe(content);
      expect(parseWatermarkFile(readFileSync(file(), "utf8")).size).toBe(0);
      const wm = s.get("anything");
      expect(wm?.level).toBe("untrusted");
      expect(wm?.reason).toContain(report?.movedTo);
      expect(s.quarantine()?.corruptFiles).toHaveLength(1);
    });
  }

  it("holds every session untrusted across restarts until the owner resets it", () => {
    plant("not json");
    const first = store();
    first.escalate("s2", "external", "mail", "gog", at(0));
    first.close();

    const reports: CorruptStateError[] = [];
    const second = store({ onCorrupt: (e) => reports.push(e) });
    expect(reports).toEqual([]); // already handled, but still in force
    expect(second.get("s1")?.level).toBe("untrusted");
    expect(second.get("s2")?.level).toBe("untrusted");
    expect(second.escalate("s1", "untrusted", "web", "web_fetch", at(1))).toBe(true);
    second.reset("s1", "shared", "owner", at(2));
    expect(second.get("s1")?.level).toBe("shared");
    expect(second.get("s1")?.resetHistory.at(-1)?.previousLevel).toBe("untrusted");
    expect(second.get("s2")?.level).toBe("untrusted");
    second.clear("s2"); // a fresh session is not the owner's word
    expect(second.get("s2")?.level).toBe("untrusted");
    second.close();

    const third = store();
    expect(third.get("s1")?.level).toBe("shared");
    expect(third.get("s2")?.level).toBe("untrusted");
    expect(third.get("never-seen")?.level).toBe("untrusted");
    expect(Object.keys(third.quarantine()?.cleared ?? {})).toEqual(["s1"]);
    // The escalation recorded under quarantine is still there should the owner lift it wholesale.
    third.close();
    unlinkSync(join(ws, ".provenance", "quarantine.json"));
    const fourth = store();
    expect(fourth.get("never-seen")).toBeUndefined();
    expect(fourth.get("s1")?.level).toBe("shared");
  });

  it("a corrupt quarantine marker re-quarantines every session, the reset ones too", () => {
    plant("not json");
    const s = store();
    s.reset("s1", "trusted", "owner", at(0));
    expect(s.get("s1")?.level).toBe("trusted");
    s.close();
    writeFileSync(join(ws, ".provenance", "quarantine.json"), "{ truncated");
    const reports: CorruptStateError[] = [];
    const t = store({ onCorrupt: (e) => reports.push(e) });
    expect(reports.map((r) => r.file)).toEqual(["quarantine.json"]);
    expect(t.get("s1")?.level).toBe("untrusted");
    const names = readdirSync(join(ws, ".provenance"));
    expect(names.some((n) => n.startsWith("quarantine.json.corrupt-"))).toBe(true);
    expect(names.some((n) => n.startsWith("watermarks.json.corrupt-"))).toBe(true);
  });

  it("a second corruption adds to the quarantine without forgetting the first", () => {
    plant("junk one");
    store().close();
    writeFileSync(file(), "junk two");
    const s = store({ clock: () => at(2000) });
    expect(s.quarantine()?.corruptFiles.map((f) => f.file)).toEqual(["watermarks.json", "watermarks.json"]);
    expect(s.quarantine()?.since).toBe(at(999).toISOString());
  });

  it("never quarantines on its own writes under random operations", () => {
    const s = store();
    for (let i = 0; i < 50; i += 1) {
      s.escalate(`s${i % 7}`, TRUST_LEVELS[i % 4] ?? "untrusted", `r${i}`, `t${i}`, at(i));
      if (i % 5 === 0) s.reset(`s${i % 3}`, "trusted", "owner", at(i));
      if (i % 11 === 0) s.clear(`s${i % 2}`);
    }
    expect(store().corruption()).toEqual([]);
    expect(existsSync(join(ws, ".provenance", "quarantine.json"))).toBe(false);
  });
});
