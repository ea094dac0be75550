import { generateKeyPairSync } from "node:crypto";
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nextEntry } from "../../src/ledger/chain-entry.js";
import { openCheckpoint, signCheckpoint } from "../../src/ledger/checkpoint.js";
import { encodeEntryLine, parseEntryLine } from "../../src/ledger/entry-line.js";
import { type Ledger, LedgerCorruptError, openLedger } from "../../src/ledger/file-ledger.js";
import { scanLog } from "../../src/ledger/ledger-log.js";
import { archiveDir, archiveFile, defaultLedgerPath, lockFile } from "../../src/ledger/ledger-paths.js";
import { checkpointViolation, consistencyProofDocument, currentCheckpoint, inclusionProofDocument, logOrigin } from "../../src/ledger/log-proofs.js";
import { checkProofDocument } from "../../src/ledger/proof-document.js";
import { LedgerLockedError, retryWhileLocked } from "../../src/ledger/writer-lock.js";

let dir: string;
let path: string;
const opened: Ledger[] = [];
const clock = { ms: Date.parse("2026-03-01T00:00:00Z") };
const now = (): Date => new Date(clock.ms);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "provenant-ledger-"));
  path = defaultLedgerPath(dir);
  clock.ms = Date.parse("2026-03-01T00:00:00Z");
});
afterEach(() => {
  for (const l of opened.splice(0)) l.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(options: Parameters<typeof openLedger>[1] = {}): Ledger {
  const ledger = openLedger(path, { now, ...options });
  opened.push(ledger);
  return ledger;
}

function closeAll(): void {
  for (const l of opened.splice(0)) l.close();
}

function fill(count: number): string[] {
  const ledger = open({ rotateEntries: 1_000_000 });
  for (let i = 1; i < count; i++) ledger.append("CLAIM", { i, text: `claim ${i}` });
  closeAll();
  return readFileSync(path, "utf8").split("\n").slice(0, -1);
}

function rewrite(lines: readonly string[]): void {
  writeFileSync(path, lines.map((l) => `${l}\n`).join(""));
}

describe("file ledger basics", () => {
  it("creates the workspace ledger with a genesis, appends, and continues after reopening", () => {
    const ledger = open();
    expect(ledger.head()).toMatchObject({ index: 0, chain: 0, entry: { seq: 0, type: "GENESIS" } });
    expect(ledger.head().entry.data).toMatchObject({ chain: 0, first_index: 0, created: "2026-03-01T00:00:00.000Z" });
    expect(ledger.append("CLAIM", { text: "test claim" })).toMatchObject({ index: 1, entry: { seq: 1 } });
    expect(ledger.verify()).toMatchObject({ size: 2, fault: undefined, tornTail: undefined });
    closeAll();
    const again = open();
    expect(again.append("META", { n: 2 }).entry.seq).toBe(2);
    closeAll();
    const scan = scanLog(path);
    expect(scan).toMatchObject({ size: 3, fault: undefined, tornTail: undefined });
    expect((statSync(path).mode & 0o777).toString(8)).toBe("600");
  });

  it("record() stamps `at` unless the caller did, append() stores data exactly", () => {
    const ledger = open();
    ledger.record("VERIFY", { file: "SOUL.md", ok: true });
    ledger.record("VERIFY", { at: "given" });
    ledger.append("CLAIM", { exact: 1 });
    closeAll();
    const entries = readFileSync(path, "utf8").trim().split("\n").map((l) => parseEntryLine(l));
    expect(entries.map((e) => (e.ok ? e.entry.data : undefined)).slice(1)).toEqual([
      { file: "SOUL.md", ok: true, at: "2026-03-01T00:00:00.000Z" },
      { at: "given" },
      { exact: 1 },
    ]);
  });

  it("refuses non-JSON data without writing anything", () => {
    const ledger = open();
    const before = readFileSync(path);
    expect(() => ledger.append("CLAIM", { bad: Number.NaN })).toThrow("canonical JSON: NaN is not a JSON number at $.bad");
    expect(() => ledger.append("CLAIM", { bad: "\ud800" })).toThrow(/lone surrogate/);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(ledger.append("CLAIM", { ok: 1 }).entry.seq).toBe(1);
  });

  it("allows one writer: a second open fails while the first holds the lock; a dead owner's lock is taken over", () => {
    open();
    expect(() => openLedger(path)).toThrow(LedgerLockedError);
    closeAll();
    expect(existsSync(lockFile(path))).toBe(false);
    writeFileSync(lockFile(path), "999999999\n");
    expect(open().head().entry.seq).toBe(0);
  });

  it("a second opener waits for the first to let go (and takes what it is offered meanwhile); past the wait, and for any other error, it fails", async () => {
    const first = open();
    setTimeout(() => first.close(), 50);
    const second = await retryWhileLocked(() => open(), 5_000);
    expect(second.head().entry.seq).toBe(0);
    // Something offered between tries ends the wait with it.
    let tries = 0;
    expect(await retryWhileLocked<Ledger | string>(() => open(), 5_000, () => Promise.resolve(++tries === 2 ? "answered elsewhere" : null))).toBe("answered elsewhere");
    expect(tries).toBe(2);
    await expect(retryWhileLocked(() => open(), 30)).rejects.toThrow(LedgerLockedError);
    let calls = 0;
    await expect(
      retryWhileLocked(() => {
        calls++;
        throw new Error("disk full");
      }, 5_000),
    ).rejects.toThrow("disk full");
    expect(calls).toBe(1);
  });

  it("refuses options that cannot work, naming them", () => {
    expect(() => openLedger(path, { rotateEntries: 1 })).toThrow("ledger option rotateEntries must be an integer >= 2, got 1");
    expect(() => openLedger(path, { fsync: "sometimes" as "group" })).toThrow(/fsync must be always, group or never/);
    expect(() => openLedger(path, { groupCommitEntries: 0 })).toThrow(/groupCommitEntries/);
    expect(() => openLedger(path, { origin: "my log" })).toThrow(/origin/);
    expect(existsSync(lockFile(path))).toBe(false);
  });

  // The group-commit timer is tested in group-commit-timer.test.ts, where fdatasync calls are counted.
  it("close is idempotent and releases the lock", () => {
    const ledger = openLedger(path, { now, groupCommitMs: 5, groupCommitEntries: 1000 });
    ledger.append("CLAIM", { n: 1 });
    ledger.append("CLAIM", { n: 2 });
    ledger.close();
    ledger.close();
    expect(existsSync(lockFile(path))).toBe(false);
    expect(scanLog(path)).toMatchObject({ size: 3, fault: undefined });
  });

  it("appends nothing after close", () => {
    const ledger = open();
    closeAll();
    expect(() => ledger.append("CLAIM", {})).toThrow(/is closed/);
  });

  it("refuses to open a corrupt ledger for appending, naming the seq", () => {
    const lines = fill(10);
    lines[4] = (lines[4] as string).replace('"claim 4"', '"claim four"');
    rewrite(lines);
    expect(() => open()).toThrow(LedgerCorruptError);
    expect(() => open()).toThrow(/corrupt at chain 0 seq 4 \(line 5\): hash mismatch/);
  });
});

describe("verification finds the first corrupt seq", () => {
  it("for a tampered entry at every position of a 1,000-entry ledger", () => {
    const lines = fill(1000);
    const wrong: string[] = [];
    for (let k = 0; k < 1000; k++) {
      const tampered = [...lines];
      const line = lines[k] as string;
      // Change one character of the data: a value for claims, the origin for genesis.
      tampered[k] = k === 0 ? line.replace("provenant.local", "provenant.locaL") : line.replace(`"claim ${k}"`, `"claim ${k}!"`);
      rewrite(tampered);
      const scan = scanLog(path);
      if (scan.fault?.seq !== k || !scan.fault.reason.startsWith("hash mismatch")) wrong.push(`${k}: ${JSON.stringify(scan.fault)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("for a changed hash field, a rehashed entry (caught by its successor), gaps, duplicates and reordering", () => {
    const lines = fill(50);
    const cases: [string, string[], number, RegExp][] = [];
    const hashField = [...lines];
    hashField[20] = (lines[20] as string).replace(/"hash":"(.)/, (_, c: string) => `"hash":"${c === "0" ? "1" : "0"}`);
    cases.push(["hash field", hashField, 20, /^hash mismatch/]);
    const rehashed = [...lines];
    const parsed = parseEntryLine(lines[20] as string);
    const prev = parseEntryLine(lines[19] as string);
    if (!parsed.ok || !prev.ok) throw new Error("fixture");
    rehashed[20] = encodeEntryLine(nextEntry(prev.entry, "CLAIM", { i: 20, text: "rewritten" }));
    cases.push(["rehashed", rehashed, 21, /^prevHash does not match the hash of seq 20/]);
    cases.push(["gap", lines.filter((_, i) => i !== 30), 30, /^expected seq=30, found seq=31 \(gap\)/]);
    cases.push(["duplicate", [...lines.slice(0, 31), lines[30] as string, ...lines.slice(31)], 31, /^expected seq=31, found seq=30 \(duplicate/]);
    cases.push(["reorder", [...lines.slice(0, 10), lines[11] as string, lines[10] as string, ...lines.slice(12)], 10, /^expected seq=10, found seq=11/]);
    const upper = [...lines];
    upper[25] = (lines[25] as string).replace(/"prevHash":"([0-9a-f]{64})"/, (_, h: string) => `"prevHash":"${h.toUpperCase()}"`);
    cases.push(["malformed prevHash", upper, 25, /^unreadable entry: prevHash is not 64 hex digits/]);
    const escaped = [...lines];
    escaped[26] = (lines[26] as string).replace(/"hash":"./, '"hash":"\\');
    cases.push(["escape in hash", escaped, 26, /^unreadable entry: not valid JSON/]);
    cases.push(["garbage line", [...lines.slice(0, 5), "{oops", ...lines.slice(5)], 5, /^unreadable entry: not valid JSON/]);
    for (const [name, content, seq, reason] of cases) {
      rewrite(content);
      const fault = scanLog(path).fault;
      expect({ name, seq: fault?.seq }).toEqual({ name, seq });
      expect(fault?.reason).toMatch(reason);
    }
  });
});

describe("torn last line", () => {
  it("is reported by verification, never passed as an entry, and cut back on the next open, at every cut point", () => {
    const lines = fill(5);
    const extra = encodeEntryLine(nextEntry(parseOk(lines[4] as string), "CLAIM", { text: "interrupted" }));
    const full = `${lines.map((l) => `${l}\n`).join("")}${extra}\n`;
    for (let cut = 1; cut <= extra.length; cut++) {
      writeFileSync(path, full.slice(0, full.length - 1 - extra.length + cut));
      const scan = scanLog(path);
      expect(scan.size).toBe(5);
      expect(scan.tornTail).toMatchObject({ bytes: cut, afterSeq: 4 });
      const seen: unknown[] = [];
      const ledger = open({ onTornTail: (t) => seen.push(t.bytes) });
      expect(seen).toEqual([cut]);
      expect(ledger.recoveredTail?.bytes).toBe(cut);
      expect(ledger.append("CLAIM", { after: cut }).entry.seq).toBe(5);
      closeAll();
      expect(scanLog(path)).toMatchObject({ size: 6, fault: undefined, tornTail: undefined });
    }
  });
});

describe("rotation into a chain of chains", () => {
  it("seals every N entries, links each genesis to the previous chain, and verifies across all", () => {
    const ledger = open({ rotateEntries: 10 });
    for (let i = 0; i < 35; i++) ledger.append("CLAIM", { i });
    expect(ledger.head()).toMatchObject({ chain: 3 });
    closeAll();
    expect(readdirSync(archiveDir(path)).sort()).toEqual(["000000.jsonl", "000001.jsonl", "000002.jsonl"]);
    expect(statSync(archiveFile(path, 0)).mode & 0o222).toBe(0);
    const scan = scanLog(path, { tree: true });
    expect(scan.fault).toBeUndefined();
    // 35 claims plus one genesis per chain.
    expect(scan.size).toBe(39);
    expect(scan.chains.map((c) => c.entries)).toEqual([10, 10, 10, 9]);
    expect(scan.chains[1]?.genesis).toMatchObject({ chain: 1, continues_from: scan.chains[0]?.lastHash, first_index: 10 });
    const reopened = open({ rotateEntries: 10 });
    expect(reopened.append("CLAIM", { after: true })).toMatchObject({ index: 39, chain: 3, entry: { seq: 9 } });
  });

  it("seals by age with the injected clock", () => {
    const ledger = open({ rotateAgeMs: 1000 });
    ledger.append("CLAIM", { i: 1 });
    clock.ms += 999;
    expect(ledger.append("CLAIM", { i: 2 }).chain).toBe(0);
    clock.ms += 1;
    expect(ledger.append("CLAIM", { i: 3 })).toMatchObject({ chain: 1, index: 4, entry: { seq: 1 } });
  });

  it("detects a removed or altered archive, and starts the next chain if a crash came between sealing and the new genesis", () => {
    const ledger = open({ rotateEntries: 5 });
    for (let i = 0; i < 12; i++) ledger.append("CLAIM", { i });
    closeAll();
    rmSync(path);
    const resumed = open({ rotateEntries: 5 });
    expect(resumed.head()).toMatchObject({ chain: 2, index: 10, entry: { seq: 0 } });
    closeAll();
    const scan = scanLog(path);
    expect(scan.fault).toBeUndefined();
    expect(scan.chains[2]?.genesis).toMatchObject({ chain: 2, continues_from: scan.chains[1]?.lastHash, first_index: 10 });
    const sealed = archiveFile(path, 1);
    chmodSync(sealed, 0o600);
    const original = readFileSync(sealed, "utf8");
    writeFileSync(sealed, original.replace('{"i":6}', '{"i":66}'));
    expect(scanLog(path).fault).toMatchObject({ chain: 1, seq: 3, index: 8, file: sealed, reason: expect.stringMatching(/^hash mismatch/) });
    writeFileSync(sealed, original);
    rmSync(archiveFile(path, 0));
    expect(scanLog(path).fault?.reason).toBe("archive for chain 0 is missing");
    rmSync(sealed);
    expect(scanLog(path).fault?.reason).toBe("first chain's genesis claims to continue another chain");
  });
});

describe("checkpoints catch what the chain alone cannot", () => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");

  function checkpointNow(): string {
    return signCheckpoint(currentCheckpoint(scanLog(path, { tree: true })), "provenant.local/ledger", privateKey);
  }

  it("a truncated ledger verifies as a chain but not against an earlier checkpoint", () => {
    const lines = fill(100);
    const note = checkpointNow();
    rewrite(lines.slice(0, 80));
    const scan = scanLog(path, { tree: true });
    expect(scan.fault).toBeUndefined();
    const violation = checkpointViolation(scan, openCheckpoint(note, "provenant.local/ledger", publicKey));
    expect(violation).toBe("truncated: the checkpoint covers 100 entries, the ledger now holds 80");
  });

  it("a rewritten tail (rehashed, even longer) is caught as a fork by the consistency check", () => {
    const lines = fill(100);
    const note = checkpointNow();
    const forked = lines.slice(0, 60);
    let prev = parseOk(forked[59] as string);
    for (let i = 60; i < 120; i++) {
      prev = nextEntry(prev, "CLAIM", { i, text: `forged ${i}` });
      forked.push(encodeEntryLine(prev));
    }
    rewrite(forked);
    const scan = scanLog(path, { tree: true });
    expect(scan.fault).toBeUndefined();
    expect(checkpointViolation(scan, openCheckpoint(note, "provenant.local/ledger", publicKey))).toMatch(
      /^history rewritten since the checkpoint \(consistency proof does not lead to the older root\)/,
    );
    // An honest extension is consistent, and its proof document checks out on its own.
    rewrite(lines);
    const ledger = open();
    for (let i = 0; i < 20; i++) ledger.append("CLAIM", { more: i });
    closeAll();
    const grown = scanLog(path, { tree: true });
    expect(checkpointViolation(grown, openCheckpoint(note, "provenant.local/ledger", publicKey))).toBeUndefined();
    const doc = { ...consistencyProofDocument(grown, 100, 120), checkpoint1: note };
    expect(checkProofDocument(doc, { publicKey, keyName: "provenant.local/ledger" })).toEqual({ ok: true, summary: expect.any(String) });
  });

  it("a checkpoint of another log, or of the same size with another root, is a violation; the same size and root is none", () => {
    fill(50);
    const scan = scanLog(path, { tree: true });
    const current = currentCheckpoint(scan);
    expect(current.origin).toBe(logOrigin(scan));
    expect(checkpointViolation(scan, current)).toBeUndefined();
    expect(checkpointViolation(scan, { ...current, origin: "other.example/log" })).toBe(`checkpoint is for log other.example/log, this ledger is ${logOrigin(scan)}`);
    const otherRoot = Buffer.alloc(32, 7);
    expect(checkpointViolation(scan, { ...current, root: otherRoot })).toBe(
      `history rewritten since the checkpoint (roots differ for the same tree size); its first 50 entries now hash to ${current.root.toString("hex")}`,
    );
    expect(checkpointViolation(scan, { ...current, size: 51 })).toBe("truncated: the checkpoint covers 51 entries, the ledger now holds 50");
  });

  it("proof documents are made only for entries and sizes the log holds", () => {
    fill(20);
    const scan = scanLog(path, { tree: true, entryAt: 5 });
    expect(inclusionProofDocument(scan, 5, 20)).toMatchObject({ kind: "inclusion", index: 5, size: 20, origin: logOrigin(scan), entry: { seq: 5 } });
    expect(inclusionProofDocument(scan, 5, 6, "note")).toMatchObject({ size: 6, checkpoint: "note" });
    expect(inclusionProofDocument(scan, 5, 20)).not.toHaveProperty("checkpoint");
    expect(() => inclusionProofDocument(scan, 6, 20)).toThrow(new RangeError("the log has no entry at index 6 (it holds 20)"));
    expect(() => inclusionProofDocument(scan, 5, 5)).toThrow(new RangeError("tree size 5 must be above 5 and at most 20"));
    expect(() => inclusionProofDocument(scan, 5, 21)).toThrow(new RangeError("tree size 21 must be above 5 and at most 20"));
    expect(consistencyProofDocument(scan, 3, 20)).toMatchObject({ kind: "consistency", size1: 3, size2: 20 });
    expect(() => consistencyProofDocument(scan, 3, 21)).toThrow(new RangeError("the log holds 20 entries, fewer than 21"));
    expect(() => currentCheckpoint(scanLog(path))).toThrow("scanLog was not asked to build the tree");
  });

  it("a torn tail never counts towards a checkpoint", () => {
    fill(10);
    appendFileSync(path, '{"data":{"half');
    expect(scanLog(path, { tree: true }).tree?.size).toBe(10);
    truncateSync(path, statSync(path).size - 3);
    expect(scanLog(path).tornTail).toBeDefined();
  });
});

function parseOk(line: string): ReturnType<typeof nextEntry> {
  const parsed = parseEntryLine(line);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.entry;
}
