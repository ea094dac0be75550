/**
 * Verification throughput: recomputing the whole chain from genesis (read each line in place, check
 * its data is canonical JSON, hash, link checks, as `provenant ledger verify` does) against raw SHA-256
 * over the same bytes, same run: on every core (the default) and on one thread, at each ledger size
 * asked for. Worker threads cost a fixed start-up (tens of ms), so the larger size shows the rate
 * and the smaller one what that start-up leaves of it. Merkle-tree rows show the cost of
 * `verify --from-checkpoint` and `checkpoint`; at the first size, a ledger whose records carry
 * non-ASCII text shows the cost of the text path such lines take.
 * Verification runs from the built package (dist/), as the CLI does: its worker threads load the
 * compiled files, where from the sources each would first load a TypeScript loader.
 * Run: npm run bench -- ledger-verify   (after npm run build: npx tsx bench/ledger-verify.ts [entries ...])
 */
import { hash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sampleDecisionRecord } from "./lib/sample-records.js";
import { type BenchCase, formatSeconds, interleaved, rate } from "./lib/timing.js";

// The built package, typed as its sources: a computed path, so type checks do not need a build.
const built = new URL("../dist/ledger/index.js", import.meta.url);
if (!existsSync(fileURLToPath(built))) throw new Error("bench/ledger-verify.ts runs the built package: npm run build first");
const { canonicalJSON, defaultSegmentThreads, openLedger, scanLog } = (await import(built.href)) as typeof import("../src/ledger/index.js");

const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [100_000, 1_000_000];
const threads = defaultSegmentThreads();
const dir = mkdtempSync(join(tmpdir(), "provenant-bench-verify-"));

function fill(file: string, entries: number, note: string | undefined): void {
  const ledger = openLedger(file, { fsync: "never", rotateEntries: entries + 1 });
  for (let i = 1; i < entries; i++) {
    ledger.record(i % 5 === 0 ? "VERIFY" : "CLAIM", { ...sampleDecisionRecord(i), ...(note === undefined ? {} : { note }) });
  }
  ledger.close();
}

/** The exact bytes the chain hashes, one input per entry: prevHash|seq|type|canonicalJSON(data). */
function hashInputs(file: Buffer): Buffer[] {
  const inputs: Buffer[] = [];
  for (let start = 0, end = file.indexOf(0x0a); end !== -1; start = end + 1, end = file.indexOf(0x0a, start)) {
    const e = JSON.parse(file.toString("utf8", start, end)) as { prevHash: string; seq: number; type: string; data: unknown };
    inputs.push(Buffer.from(`${e.prevHash}|${e.seq}|${e.type}|${canonicalJSON(e.data)}`, "utf8"));
  }
  return inputs;
}

function verifies(path: string, entries: number, options: { threads?: number; tree?: boolean }): number {
  const scan = scanLog(path, options);
  if (scan.fault !== undefined || scan.size !== entries) throw new Error(`ledger did not verify: ${scan.fault?.reason ?? `${scan.size} entries`}`);
  return scan.size;
}

try {
  for (const [n, entries] of sizes.entries()) {
    const detail = n === 0;
    const path = join(dir, `ledger-${entries}.jsonl`);
    const unicodePath = join(dir, `ledger-${entries}-unicode.jsonl`);
    fill(path, entries, undefined);
    if (detail) fill(unicodePath, entries, "réponse reçue");
    const file = readFileSync(path);
    const inputs = hashInputs(file);
    const inputBytes = inputs.reduce((total, b) => total + b.length, 0);

    let sink = 0;
    const cases: BenchCase[] = [
      // The fastest form Node offers for many small inputs: one-shot crypto.hash with hex output.
      { name: "raw SHA-256, one hash per entry input", units: entries, run: () => inputs.forEach((input) => (sink ^= hash("sha256", input, "hex").charCodeAt(0))) },
      { name: "raw SHA-256, the whole file in one hash", units: entries, run: () => (sink ^= hash("sha256", file, "hex").charCodeAt(0)) },
      { name: `ledger verify (read, check canonical form, hash, link), ${threads} threads`, units: entries, run: () => (sink ^= verifies(path, entries, {})) },
      { name: "ledger verify, one thread", units: entries, run: () => (sink ^= verifies(path, entries, { threads: 1 })) },
    ];
    cases.push(
      { name: `ledger verify + Merkle tree (verify --from-checkpoint, checkpoint), ${threads} threads`, units: entries, run: () => (sink ^= verifies(path, entries, { tree: true })) },
      { name: "ledger verify + Merkle tree, one thread", units: entries, run: () => (sink ^= verifies(path, entries, { tree: true, threads: 1 })) },
    );
    if (detail) {
      cases.push({
        name: `ledger verify, records with non-ASCII text (text path; longer lines), ${threads} threads`,
        units: entries,
        run: () => (sink ^= verifies(unicodePath, entries, {})),
      });
    }
    const rows = interleaved(cases, entries > 200_000 ? 5 : 11);

    console.log(`\nledger verification: ${entries.toLocaleString("en-US")} entries, ${file.length.toLocaleString("en-US")} file bytes, ${inputBytes.toLocaleString("en-US")} hashed bytes`);
    console.log("| case | median | entries/s | MB/s of file | ratio to per-entry raw SHA-256 (median of per-round ratios) |");
    console.log("| --- | ---: | ---: | ---: | ---: |");
    for (const m of rows) {
      console.log(`| ${m.name} | ${formatSeconds(m.median)} | ${Math.round(rate(m)).toLocaleString("en-US")} | ${(file.length / m.median / 1e6).toFixed(0)} | ${(m.ratio ?? Number.NaN).toFixed(2)} |`);
    }
    console.log(`\nverify / raw per-entry SHA-256 at ${entries.toLocaleString("en-US")} entries = ${rows[2]?.ratio?.toFixed(2) ?? "?"} on ${threads} threads, ${rows[3]?.ratio?.toFixed(2) ?? "?"} on one (target >= 0.5)`);
    if (sink === -1) console.log("");
    rmSync(path, { force: true });
    rmSync(unicodePath, { force: true });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
