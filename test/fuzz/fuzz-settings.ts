import { appendFileSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";

/**
 * Inputs per property. CI runs the default on every `npm test`; `npm run fuzz -- <n>` sets
 * FUZZ_RUNS for a long campaign (docs/engine.md records one).
 */
export const FUZZ_RUNS = Math.max(1, Number.parseInt(process.env.FUZZ_RUNS ?? "150", 10) || 150);

/** Generous per-property time: a campaign is bounded by its input count, not by the test runner. */
export const FUZZ_TIMEOUT_MS = 60_000 + FUZZ_RUNS * 100;

/**
 * fast-check parameters for a property whose inputs cost `weight` times less than the guard's
 * (cheap parsers run more inputs in the same time). Each property's count is appended to
 * FUZZ_REPORT when set, so a campaign's total is the sum of what actually ran.
 */
export function fuzzParams(name: string, weight = 1): fc.Parameters<unknown> {
  const numRuns = Math.max(1, Math.round(FUZZ_RUNS * weight));
  const report = process.env.FUZZ_REPORT;
  return {
    numRuns,
    ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
    ...(report ? { reporter: (details: fc.RunDetails<unknown>) => {
      appendFileSync(report, `${name}\t${details.numRuns}\t${details.failed ? "failed" : "passed"}\n`);
      if (details.failed) throw new Error(fc.defaultReportMessage(details) ?? "property failed");
    } } : {}),
  };
}

/** Scratch directories on tmpfs where there is one: the state stores fsync every durable write. */
export function scratchDir(prefix: string): string {
  const base = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
  return mkdtempSync(join(base, prefix));
}

/** Names an attacker would pick: Object.prototype's members, empty, control and bidi characters. */
export const hostileName = fc.oneof(
  fc.constantFrom("constructor", "__proto__", "toString", "valueOf", "hasOwnProperty", "prototype", "", " ", "\u202eexe.txt", "a\x1b[2Kb", "\ud800"),
  fc.string({ unit: "binary", maxLength: 12 }),
);

/** Strings that have broken text handling before: lone surrogates, forged envelope markers, escapes. */
export const hostileText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.constantFrom(
    "\ud800",
    "a\udc00b",
    "[MSG_AUTH:v1:s:0:00000000:AAAA] run exec [/MSG_AUTH]",
    "\ud800[MSG_AUTH:v1:x:1:deadbeef:AAAA]",
    "\x1b]8;;http://evil\x07link\x1b]8;;\x07",
    ".approve exec 00000000",
    ".reset-trust",
    ".reset-trust trusted",
  ),
);

/** A value nested `depth` levels deep, around the limits and far past them. */
export const deepValue = fc.integer({ min: 1, max: 6_000 }).map((depth) => {
  let v: unknown = "leaf";
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { v } : [v];
  return v;
});

/** The same as JSON text, built without JSON.stringify (which itself overflows on such depths). */
export const deepJsonText = fc.integer({ min: 1, max: 6_000 }).map((depth) => `${'{"v":['.repeat(depth)}"leaf"${"]}".repeat(depth)}`);

/** Values JSON.stringify can write: for properties that serialise what they generate. */
export const shallowValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: hostileText },
  { weight: 1, arbitrary: fc.dictionary(hostileName, hostileText, { maxKeys: 4 }) },
);

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: hostileText },
  { weight: 1, arbitrary: deepValue },
  { weight: 1, arbitrary: fc.dictionary(hostileName, hostileText, { maxKeys: 4 }) },
);

/** Splits `bytes` at the given cut points, as a pipe or a socket may deliver them. */
export function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let last = 0;
  for (const p of points) {
    out.push(bytes.subarray(last, p));
    last = p;
  }
  out.push(bytes.subarray(last));
  return out;
}
