#!/usr/bin/env node
// Mutation testing of the security core with StrykerJS, one module at a time.
//
//   npm run mutation                          every module, one after the other
//   npm run mutation -- resolve-path auth     only those modules
//   npm run mutation -- --changed HEAD~1      only the lines changed since that git ref (what CI runs)
//   npm run mutation -- --changed main --break 90
//                                             ... and exit 1 if a module scores below 90 % there
//   npm run mutation -- --changed main --plan what would be mutated, without running
//   npm run mutation -- --changed HEAD~1 --max-lines 12 --gate
//                                             exit 1 if a module whose recorded full run reached the
//                                             goal (its `gate` in mutation-modules.mjs) scores below
//                                             it on the changed lines (what CI runs)
//
// Each module mutates its own files and runs only its own tests (the rest of the suite would cost
// minutes per mutant on two cores and adds nothing: a mutant in resolve-path.ts is killed by
// test/state or not at all). A full run is incremental: a module's previous results in
// reports/mutation/<module>.incremental.json are reused for code and tests that did not change.
// Reports: reports/mutation/<module>/index.html and mutation.json.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { resolve } from "node:path";
import { Stryker } from "@stryker-mutator/core";
import picomatch from "picomatch";
import { MUTATION_MODULES } from "./mutation-modules.mjs";

const args = process.argv.slice(2);
let changedSince = null;
let breakAt = null;
let planOnly = false;
let gate = false;
let maxLines = Infinity;
const named = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--changed") changedSince = args[++i] ?? null;
  else if (args[i] === "--break") breakAt = Number(args[++i]);
  else if (args[i] === "--plan") planOnly = true;
  else if (args[i] === "--gate") gate = true;
  else if (args[i] === "--max-lines") maxLines = Number(args[++i]);
  else named.push(args[i]);
}
if ((args.includes("--changed") && !changedSince) || !(maxLines > 0) || (breakAt !== null && !(breakAt >= 0 && breakAt <= 100))) {
  console.error("usage: mutation.mjs [module...] [--changed <git ref> [--max-lines N]] [--break <score 0-100> | --gate] [--plan]");
  process.exit(2);
}
const unknown = named.filter((name) => !Object.hasOwn(MUTATION_MODULES, name));
if (unknown.length > 0) {
  console.error(`mutation: unknown module(s) ${unknown.join(", ")}; known: ${Object.keys(MUTATION_MODULES).join(", ")}`);
  process.exit(2);
}

/** The module's files among `files`, by its mutate globs (a leading "!" excludes). */
function filesOf(module, files) {
  const include = picomatch(module.mutate.filter((g) => !g.startsWith("!")));
  const exclude = picomatch(module.mutate.filter((g) => g.startsWith("!")).map((g) => g.slice(1)));
  return files.filter((f) => include(f) && !exclude(f));
}

/** Changed line ranges per file since `ref` (the lines as they are now), from `git diff -U0`. */
function changedLines(ref) {
  const diff = execFileSync("git", ["diff", "-U0", "--no-color", ref, "--", "src"], { encoding: "utf8", maxBuffer: 64 << 20 });
  const ranges = new Map();
  let file = null;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++ ")) file = line === "+++ /dev/null" ? null : line.slice(6);
    const hunk = /^@@ -\S+ \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk && file !== null) {
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      if (count > 0) ranges.set(file, [...(ranges.get(file) ?? []), `${start}-${start + count - 1}`]);
    }
  }
  return ranges;
}

const plan = [];
const moduleNames = named.length > 0 ? named : Object.keys(MUTATION_MODULES);
if (changedSince === null) {
  for (const name of moduleNames) plan.push({ name, mutate: MUTATION_MODULES[name].mutate, incremental: true });
} else {
  const ranges = changedLines(changedSince);
  // A bounded subset: at most maxLines changed lines in all, taken file by file in order (a merge
  // can change thousands; CI must stay minutes long).
  let budget = maxLines;
  let dropped = 0;
  for (const name of moduleNames) {
    const mutate = [];
    for (const f of filesOf(MUTATION_MODULES[name], [...ranges.keys()])) {
      for (const range of ranges.get(f)) {
        const [start, end] = range.split("-").map(Number);
        const take = Math.min(end - start + 1, budget);
        dropped += end - start + 1 - take;
        if (take > 0) mutate.push(`${f}:${start}-${start + take - 1}`);
        budget -= take;
      }
    }
    if (mutate.length > 0) plan.push({ name, mutate, incremental: false });
  }
  if (dropped > 0) console.log(`mutation: ${dropped} more changed line(s) left out (--max-lines ${maxLines})`);
  if (plan.length === 0) console.log(`mutation: no line of the security core changed since ${changedSince}`);
}

if (planOnly) {
  for (const { name, mutate } of plan) console.log(`${name}: ${mutate.join(" ")}`);
  process.exit(0);
}

// A sandbox links every node_modules of the project, the real hosts' caches' too, but not their
// install stamps: a test there that asks for a host (the pinned OpenClaw's own path resolver) would
// install it again through the link and empty the project's cache, under a concurrent end-to-end
// install in CI. The sandbox's tests use the project's caches, which the install scripts keep.
process.env.PROVENANT_OPENCLAW_CACHE ||= resolve(".cache/openclaw-e2e");
process.env.PROVENANT_CLAUDE_CODE_CACHE ||= resolve(".cache/claude-code-e2e");

const summary = [];
const notRun = [];
for (const { name, mutate, incremental } of plan) {
  const m = MUTATION_MODULES[name];
  const dir = `reports/mutation/${incremental ? name : `${name}-changed`}`;
  mkdirSync(dir, { recursive: true });
  // Tests read the outside corpora at ../shared from the project root; in Stryker's sandbox
  // (.stryker-tmp/<module>/sandbox-*) that path is .stryker-tmp/<module>/shared. Without this link a
  // corpus test file fails to load, its mutants show as not covered, and the score is wrong.
  const sandboxShared = `.stryker-tmp/${name}/shared`;
  mkdirSync(`.stryker-tmp/${name}`, { recursive: true });
  if (!existsSync(sandboxShared) && existsSync("../shared")) symlinkSync(resolve("../shared"), sandboxShared);
  const started = Date.now();
  // Read by vitest.mutation.config.ts in every test runner process.
  process.env.MUTATION_TESTS = m.tests.join(",");
  const stryker = new Stryker({
    testRunner: "vitest",
    vitest: { configFile: "vitest.mutation.config.ts", related: false },
    checkers: ["typescript"],
    tsconfigFile: "tsconfig.mutation.json",
    typescriptChecker: { prioritizePerformanceOverAccuracy: true },
    mutate,
    ignorePatterns: ["dist", ".cache", "reports", ".stryker-tmp", "bench", "examples", "docs"],
    coverageAnalysis: "perTest",
    // A mutant of code that runs when a module loads (a table, a pattern) needs the module loaded
    // again, which the vitest runner's workers do not do: such a mutant survives every test, whatever
    // the tests say, after costing a run of all of them (over half a module's time). They are left
    // out (reported as ignored); the ones in security tables are applied by hand with
    // scripts/mutants-by-hand.mjs, which runs a fresh test process per mutant.
    ignoreStatic: true,
    incremental,
    incrementalFile: `reports/mutation/${name}.incremental.json`,
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
    timeoutMS: 20_000,
    // The initial run of a module's whole test folder, instrumented, on a loaded 2-core machine.
    dryRunTimeoutMinutes: 20,
    reporters: ["html", "json", "clear-text", "progress"],
    htmlReporter: { fileName: `${dir}/index.html` },
    jsonReporter: { fileName: `${dir}/mutation.json` },
    thresholds: { high: 90, low: 80, break: null },
    tempDirName: `.stryker-tmp/${name}`,
    cleanTempDir: true,
  });
  let results;
  try {
    results = await stryker.runMutationTest();
  } catch (error) {
    // Stryker itself could not run (its initial test run in the sandbox failed, a checker crashed):
    // nothing was measured, which is not the same as mutants surviving. The test tier judges the tests.
    console.error(`mutation: ${name} could not run: ${error instanceof Error ? error.message : String(error)}`);
    notRun.push(name);
    continue;
  }
  const count = (...statuses) => results.filter((r) => statuses.includes(r.status)).length;
  // Detected: a test failed or the mutant hung. Undetected: no test failed, or none ran it.
  const killed = count("Killed", "Timeout");
  const survived = count("Survived", "NoCoverage");
  summary.push({
    module: name,
    mutants: results.length,
    killed,
    survived,
    invalid: count("CompileError", "RuntimeError"),
    ignored: count("Ignored"),
    score: killed + survived === 0 ? 100 : (100 * killed) / (killed + survived),
    seconds: Math.round((Date.now() - started) / 1000),
  });
}

if (summary.length > 0) {
  console.log("\nmodule           mutants  killed  survived  invalid  ignored  score    time");
  for (const s of summary) {
    const cells = [s.mutants, s.killed, s.survived, s.invalid, s.ignored].map((n, i) => String(n).padStart([7, 7, 9, 8, 8][i]));
    console.log(`${s.module.padEnd(16)} ${cells.join(" ")}  ${s.score.toFixed(1).padStart(5)}%  ${s.seconds}s`);
  }
}
const thresholdOf = (name) => breakAt ?? (gate ? (MUTATION_MODULES[name].gate ?? null) : null);
const below = summary.filter((s) => thresholdOf(s.module) !== null && s.score < thresholdOf(s.module));
for (const s of below) console.error(`mutation: ${s.module} scores ${s.score.toFixed(1)}%, below ${thresholdOf(s.module)}%`);
// 1: a module held to the goal scored below it; 3: nothing below it, but a module could not be measured.
process.exit(below.length > 0 ? 1 : notRun.length > 0 ? 3 : 0);
