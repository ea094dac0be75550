/**
 * Canonical JSON throughput: ours against the canonicalize library, same inputs, same run.
 * Run: npx tsx bench/jcs.ts
 */
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { canonicalJSON } from "../src/ledger/canonical-json.js";
import { interleaved, printTable } from "./lib/timing.js";

// CommonJS module exporting the function itself (its typings claim an ES default export).
const canonicalize = createRequire(import.meta.url)("canonicalize") as (value: unknown) => string | undefined;

const corpus = join(import.meta.dirname, "../../shared/corpora/jcs/input");
const corpusValues: unknown[] = readdirSync(corpus).map((f) => JSON.parse(readFileSync(join(corpus, f), "utf8")));

// Shaped like what the guard records: a decision with its provenance.
const auditRecords: unknown[] = Array.from({ length: 1000 }, (_, i) => ({
  event: "decision",
  session: `agent:main:telegram:${i % 17}`,
  tool: ["web_fetch", "exec", "message_send", "read"][i % 4],
  verdict: i % 3 === 0 ? "confirm" : "allow",
  taint: ["trusted", "shared", "external", "untrusted"][i % 4],
  rule: "policy.taint.exec",
  code: i % 3 === 0 ? (0x1f2e3d4c + i).toString(16) : undefined,
  provenance: [
    { node: i, tool: "web_fetch", trust: "external", url: `https://example.com/page/${i}?q=é` },
    { node: i + 1, tool: "read", trust: "trusted", bytes: 1234 + i },
  ],
  params: { url: "https://example.com/", timeoutMs: 30000, retries: 2.5, follow: true, headers: null },
  at: "2026-02-21T18:00:00.000Z",
}));

const numbers: number[] = readFileSync(join(import.meta.dirname, "../../shared/corpora/jcs/es6-numbers-10000.txt"), "utf8")
  .split("\n")
  .filter((l) => l !== "")
  .map((line) => {
    const bits = Buffer.alloc(8);
    bits.writeBigUInt64BE(BigInt(`0x${line.split(",")[0] ?? ""}`));
    return bits.readDoubleBE(0);
  });

function suite(title: string, values: readonly unknown[], rounds: number): void {
  const bytes = values.reduce<number>((n, v) => n + Buffer.byteLength(canonicalJSON(v)), 0);
  let sink = 0;
  const rows = interleaved(
    [
      { name: "canonicalize@2.1.0", units: values.length, run: () => values.forEach((v) => (sink += (canonicalize(v) ?? "").length)) },
      { name: "canonicalJSON", units: values.length, run: () => values.forEach((v) => (sink += canonicalJSON(v).length)) },
    ],
    rounds,
  );
  printTable(`${title} (${values.length} values, ${bytes} bytes per round)`, "values", rows);
  if (sink === 0) throw new Error("unreachable: results were discarded");
}

suite("audit records", auditRecords, 60);
suite("RFC 8785 corpus inputs", corpusValues, 2000);
suite("ES6 number corpus", numbers, 60);
