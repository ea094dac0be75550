import { mkdtempSync, rmSync } from "node:fs";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openLedger } from "../../src/ledger/file-ledger.js";
import { scanLog } from "../../src/ledger/ledger-log.js";
import { defaultLedgerPath } from "../../src/ledger/ledger-paths.js";

// The real fdatasync runs; the wrapper only counts the calls, so the test can tell a sync made by
// the timer from the one close() makes anyway.
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return { ...real, fdatasyncSync: vi.fn(real.fdatasyncSync) };
});

let dir: string;
const now = (): Date => new Date(Date.parse("2026-03-01T00:00:00Z"));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "provenant-group-commit-"));
  vi.mocked(fs.fdatasyncSync).mockClear();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("group commit", () => {
  it("rule: the timer syncs pending entries between appends, before close", async () => {
    const path = defaultLedgerPath(dir);
    const ledger = openLedger(path, { now, fsync: "group", groupCommitMs: 5, groupCommitEntries: 1000 });
    try {
      vi.mocked(fs.fdatasyncSync).mockClear();
      ledger.append("CLAIM", { n: 1 });
      // Deferred: the append itself does not sync.
      expect(fs.fdatasyncSync).not.toHaveBeenCalled();
      await vi.waitFor(() => expect(fs.fdatasyncSync).toHaveBeenCalledTimes(1), { timeout: 10_000, interval: 5 });
      ledger.append("CLAIM", { n: 2 });
      await vi.waitFor(() => expect(fs.fdatasyncSync).toHaveBeenCalledTimes(2), { timeout: 10_000, interval: 5 });
    } finally {
      ledger.close();
    }
    // Nothing was pending at close: it had nothing left to sync.
    expect(fs.fdatasyncSync).toHaveBeenCalledTimes(2);
    expect(scanLog(path)).toMatchObject({ size: 3, fault: undefined });
  });

  it("a full group syncs at once, without waiting for the timer", () => {
    const ledger = openLedger(defaultLedgerPath(dir), { now, fsync: "group", groupCommitMs: 60_000, groupCommitEntries: 3 });
    try {
      vi.mocked(fs.fdatasyncSync).mockClear();
      ledger.append("CLAIM", { n: 1 });
      ledger.append("CLAIM", { n: 2 });
      expect(fs.fdatasyncSync).not.toHaveBeenCalled();
      ledger.append("CLAIM", { n: 3 });
      expect(fs.fdatasyncSync).toHaveBeenCalledTimes(1);
    } finally {
      ledger.close();
    }
  });
});
