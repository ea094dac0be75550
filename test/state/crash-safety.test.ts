import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trustRank } from "../../src/core/trust-levels.js";
import type { TrustLevel } from "../../src/core/trust-levels.js";
import { BlockedWriteStore } from "../../src/state/blocked-write-store.js";
import { parseWatermarkFile } from "../../src/state/watermark-file.js";
import { FileWatermarkStore } from "../../src/state/watermark-store.js";

const child = join(import.meta.dirname, "fixtures", "crash-child.mjs");
/** Two writers share the workspace each round, so a killed lock holder is also exercised. */
const ROUNDS = 25;
const WRITERS = 2;

let ws: string;
beforeAll(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), "provenant-crash-")));
  writeFileSync(join(ws, "SOUL.md"), "soul\n");
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

interface Acks {
  readonly escalated: Map<string, TrustLevel>;
  readonly staged: string[];
}

/**
 * Runs one writer until SIGKILL at a random moment after its first acknowledged staged write (so
 * every writer has done real work however loaded the machine is); returns what it acknowledged.
 */
function runAndKill(run: string, acks: Acks): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const proc = spawn(process.execPath, [child, ws, run], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let armed = false;
    proc.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (!armed && out.includes("\nstaged ")) {
        armed = true;
        setTimeout(() => proc.kill("SIGKILL"), Math.floor(Math.random() * 150));
      }
    });
    proc.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    proc.on("error", reject);
    proc.on("close", (_code, signal) => {
      if (signal !== "SIGKILL") {
        reject(new Error(`writer ${run} ended on its own (${signal ?? "no signal"}): ${err}`));
        return;
      }
      // Only whole lines: the last one may have been cut by the kill.
      const lines = out.split("\n").slice(0, -1);
      for (const line of lines) {
        const [kind, a, b] = line.split(" ");
        if (kind === "staged" && a !== undefined) acks.staged.push(a);
        if (kind === "escalated" && a !== undefined && b !== undefined) {
          const prior = acks.escalated.get(a);
          if (prior === undefined || trustRank(b as TrustLevel) > trustRank(prior)) acks.escalated.set(a, b as TrustLevel);
        }
      }
      resolvePromise();
    });
  });
}

describe("crash safety under SIGKILL", () => {
  it(`loses no acknowledged write over ${ROUNDS * WRITERS} kills`, { timeout: 120_000 }, async () => {
    const acks: Acks = { escalated: new Map(), staged: [] };
    let checked = 0;
    let locksLeft = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      await Promise.all(Array.from({ length: WRITERS }, (_, w) => runAndKill(`${round}.${w}`, acks)));

      if (existsSync(join(ws, ".provenance", "watermarks.json.lock"))) locksLeft += 1;
      const file = join(ws, ".provenance", "watermarks.json");
      const onDisk = existsSync(file) ? parseWatermarkFile(readFileSync(file, "utf8")) : new Map();
      expect(existsSync(join(ws, ".provenance", "quarantine.json")), `round ${round}: quarantined`).toBe(false);
      for (const [session, level] of acks.escalated) {
        const stored = onDisk.get(session)?.level;
        expect(stored, `round ${round}: ${session}`).toBeDefined();
        expect(trustRank(stored ?? "trusted"), `round ${round}: ${session}`).toBeGreaterThanOrEqual(trustRank(level));
      }
      const store = new FileWatermarkStore(ws);
      expect(store.corruption()).toEqual([]);
      store.close();

      // This round's acknowledgements now; all of them, and every file's readability, at the end.
      const blocked = new BlockedWriteStore(ws);
      for (const id of acks.staged.slice(checked)) expect(blocked.get(id).id, `round ${round}`).toBe(id);
      checked = acks.staged.length;
    }
    const blocked = new BlockedWriteStore(ws);
    expect(blocked.unreadable()).toEqual([]);
    for (const id of acks.staged) expect(blocked.get(id).id).toBe(id);
    // Writers spend most of their time inside the lock, so most rounds end with a dead holder's
    // lock that the next round must break; none at all would mean that path went untested.
    expect(locksLeft, "rounds that left a dead holder's lock").toBeGreaterThan(0);
    expect(acks.staged.length).toBeGreaterThanOrEqual(ROUNDS * WRITERS);
    expect(acks.escalated.size).toBeGreaterThanOrEqual(ROUNDS * WRITERS);
    expect(readFileSync(join(ws, "SOUL.md"), "utf8")).toBe("soul\n");
  });
});
