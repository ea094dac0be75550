/**
 * Durable append throughput (entries/s) of the file ledger under each fsync policy, the default
 * (group commit) first, against the bare file system doing the same durable work on the same bytes:
 * write(2) of each line and fdatasync(2) at the same points. Same run, same disk.
 * Run: npx tsx bench/ledger-append.ts [entries]
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FsyncPolicy, LEDGER_DEFAULTS, openLedger } from "../src/ledger/file-ledger.js";
import { sampleDecisionRecord } from "./lib/sample-records.js";
import { interleaved, printTable } from "./lib/timing.js";

const entries = Number(process.argv[2] ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), "provenant-bench-append-"));
let run = 0;


function ledgerRun(policy: FsyncPolicy, count: number): () => void {
  return () => {
    const path = join(dir, `ledger-${run++}.jsonl`);
    const ledger = openLedger(path, { fsync: policy, rotateEntries: count + 10 });
    for (let i = 1; i < count; i++) ledger.record("CLAIM", sampleDecisionRecord(i));
    ledger.close();
  };
}

// The same lines the ledger wrote, appended with nothing but the system calls.
ledgerRun("never", entries)();
const lines = readFileSync(join(dir, "ledger-0.jsonl"), "utf8").split("\n").slice(0, -1).map((l) => Buffer.from(`${l}\n`));

function rawRun(syncEvery: number, count: number): () => void {
  return () => {
    const fd = openSync(join(dir, `raw-${run++}.jsonl`), "a", 0o600);
    for (let i = 0; i < count; i++) {
      const line = lines[i % lines.length] as Buffer;
      writeSync(fd, line, 0, line.length);
      if (syncEvery > 0 && (i + 1) % syncEvery === 0) fdatasyncSync(fd);
    }
    if (syncEvery > 0) fdatasyncSync(fd);
    closeSync(fd);
  };
}

try {
  const group = LEDGER_DEFAULTS.groupCommitEntries;
  const alwaysCount = Math.min(entries, 2_000);
  const pairs = [
    {
      title: `append, default policy (${entries.toLocaleString("en-US")} entries per round)`,
      cases: [
        { name: `raw write + fdatasync every ${group}`, units: entries, run: rawRun(group, entries) },
        { name: `ledger, fsync=group (default, ${group} entries / ${LEDGER_DEFAULTS.groupCommitMs} ms)`, units: entries, run: ledgerRun("group", entries) },
      ],
      rounds: 5,
    },
    {
      title: `append, fsync=always (${alwaysCount.toLocaleString("en-US")} entries per round)`,
      cases: [
        { name: "raw write + fdatasync every line", units: alwaysCount, run: rawRun(1, alwaysCount) },
        { name: "ledger, fsync=always", units: alwaysCount, run: ledgerRun("always", alwaysCount) },
      ],
      rounds: 3,
    },
    {
      title: `append, fsync=never (${entries.toLocaleString("en-US")} entries per round)`,
      cases: [
        { name: "raw write, no fsync", units: entries, run: rawRun(0, entries) },
        { name: "ledger, fsync=never", units: entries, run: ledgerRun("never", entries) },
      ],
      rounds: 5,
    },
  ];
  console.log(`entries of ~${lines[1]?.length ?? 0} bytes (an audit decision record)`);
  for (const pair of pairs) printTable(pair.title, "entries", interleaved(pair.cases, pair.rounds));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
