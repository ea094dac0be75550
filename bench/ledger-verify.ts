/**
 * Verification throughput: recomputing the whole chain from genesis (read each line in place, check
 * its data is canonical JSON, hash, link checks, as `provenant ledger verify` does) against raw SHA-256
 * over the same bytes, same run: on every core (the default), and on one thread. A second ledger
 * whose records carry non-ASCII text shows the cost of the text path such lines take.
 * Verification runs from the built package (dist/), as `provenant ledger verify` does: its worker
 * threads load the compiled files, where from the sources each would first load a TypeScript loader.
 * Run: npm run build && npx tsx bench/ledger-verify.ts [entries]   (or: npm run bench -- ledger-verify)
 */
import { hash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJSON, defaultSegmentThreads, openLedger, scanLog } from "../dist/ledger/index.js";
import { sampleDecisionRecord } from "./lib/sample-records.js";
import { formatSeconds, interleaved, rate } from "./lib/timing.js";

const entries = Number(process.argv[2] ?? 100_000);
const threads = defaultSegmentThreads();
const dir = mkdtempSync(join(tmpdir(), "provenant-bench-verify-"));
const path = join(dir, "ledger.jsonl");
const unicodePath = join(dir, "ledger-unicode.jsonl");

function fill(file: string, note: string | undefined): void {
  const ledger = openLedger(file, { fsync: "never", rotateEntries: entries + 1 });
  for (let i = 1; i < entries; i++) {
    ledger.record(i % 5 === 0 ? "VERIFY" : "CLAIM", { ...sampleDecisionRecord(i), ...(note === undefined ? {} : { note }) });
  }
  ledger.close();
}

try {
  fill(path, undefined);
  fill(unicodePath, "réponse reçue");

  const file = readFileSync(path);
  const lines = file.toString("utf8").split("\n").slice(0, -1);
  // The exact bytes the chain hashes: prevHash|seq|type|canonicalJSON(data), one input per entry.
  const hashInputs = lines.map((line) => {
    const e = JSON.parse(line) as { prevHash: string; seq: number; type: string; data: unknown };
    return Buffer.from(`${e.prevHash}|${e.seq}|${e.type}|${canonicalJSON(e.data)}`, "utf8");
  });
  const inputBytes = hashInputs.reduce((n, b) => n + b.length, 0);

  let sink = 0;
  const cases = [
    // The fastest form Node offers for many small inputs: one-shot crypto.hash with hex output.
    { name: "raw SHA-256, one hash per entry input", run: () => hashInputs.forEach((input) => (sink ^= hash("sha256", input, "hex").charCodeAt(0))) },
    { name: "raw SHA-256, the whole file in one hash", run: () => (sink ^= hash("sha256", file, "hex").charCodeAt(0)) },
    {
      name: `ledger verify (read, check canonical form, hash, link), ${threads} threads`,
      run: () => {
        const scan = scanLog(path);
        if (scan.fault !== undefined || scan.size !== entries) throw new Error("ledger did not verify");
      },
    },
    {
      name: "ledger verify, one thread",
      run: () => {
        const scan = scanLog(path, { threads: 1 });
        if (scan.fault !== undefined || scan.size !== entries) throw new Error("ledger did not verify");
      },
    },
    { name: "ledger verify + Merkle tree (verify --from-checkpoint), one thread", run: () => (sink ^= scanLog(path, { tree: true }).tree?.size ?? 0) },
    {
      name: `ledger verify, records with non-ASCII text (text path; slightly longer lines), ${threads} threads`,
      run: () => {
        if (scanLog(unicodePath).size !== entries) throw new Error("ledger did not verify");
      },
    },
  ];
  const rows = interleaved(cases.map((c) => ({ ...c, units: entries })), 11);

  console.log(`\nledger verification: ${entries.toLocaleString("en-US")} entries, ${file.length.toLocaleString("en-US")} file bytes, ${inputBytes.toLocaleString("en-US")} hashed bytes`);
  console.log("| case | median | entries/s | MB/s of file | ratio to per-entry raw SHA-256 (median of per-round ratios) |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const m of rows) {
    console.log(
      `| ${m.name} | ${formatSeconds(m.median)} | ${Math.round(rate(m)).toLocaleString("en-US")} | ${(file.length / m.median / 1e6).toFixed(0)} | ${(m.ratio ?? Number.NaN).toFixed(2)} |`,
    );
  }
  console.log(`\nverify / raw per-entry SHA-256 = ${rows[2]?.ratio?.toFixed(2) ?? "?"} on ${threads} threads, ${rows[3]?.ratio?.toFixed(2) ?? "?"} on one (target >= 0.5)`);
  if (sink === -1) console.log("");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
