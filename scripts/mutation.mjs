#!/usr/bin/env node
// Mutation testing of the security core with StrykerJS, one module at a time.
//
//   npm run mutation                      every module, one after the other
//   npm run mutation -- state auth        only those modules
//   npm run mutation -- --since main      only the modules whose files changed since that git ref
//
// Each module mutates its own files and runs only its own tests (the rest of the suite
// would cost minutes per mutant on two cores and adds nothing: a mutant in resolve-path.ts is
// killed by test/state or not at all). Runs are incremental: a module's previous results in
// reports/mutation/<module>.incremental.json are reused for code and tests that did not change.
// The HTML and JSON reports go to reports/mutation/<module>/.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { Stryker } from "@stryker-mutator/core";
import { MUTATION_MODULES } from "./mutation-modules.mjs";

const args = process.argv.slice(2);
let since = null;
const named = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--since") since = args[++i] ?? null;
  else named.push(args[i]);
}

const unknown = named.filter((name) => !(name in MUTATION_MODULES));
if (unknown.length > 0) {
  console.error(`mutation: unknown module(s) ${unknown.join(", ")}; known: ${Object.keys(MUTATION_MODULES).join(", ")}`);
  process.exit(2);
}

let modules = named.length > 0 ? named : Object.keys(MUTATION_MODULES);
if (since !== null) {
  const changed = execFileSync("git", ["diff", "--name-only", `${since}...HEAD`], { encoding: "utf8" }).split("\n").filter(Boolean);
  const touches = (prefixes) => changed.some((file) => prefixes.some((prefix) => file === prefix || file.startsWith(prefix)));
  modules = modules.filter((name) => {
    const m = MUTATION_MODULES[name];
    const prefixes = [...m.mutate, ...m.tests].filter((spec) => !spec.startsWith("!")).map((spec) => spec.replace(/:.*$/, "").replace(/\*.*$/, ""));
    return touches(prefixes);
  });
  if (modules.length === 0) console.log(`mutation: no module of the security core changed since ${since}`);
}

const summary = [];
for (const name of modules) {
  const m = MUTATION_MODULES[name];
  const dir = `reports/mutation/${name}`;
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  process.env.MUTATION_TESTS = m.tests.join(",");
  const stryker = new Stryker({
    testRunner: "vitest",
    vitest: { configFile: "vitest.mutation.config.ts", related: false },
    checkers: ["typescript"],
    tsconfigFile: "tsconfig.json",
    typescriptChecker: { prioritizePerformanceOverAccuracy: true },
    mutate: m.mutate,
    // Only what the module's tests load: sandboxes stay small on a shared machine.
    ignorePatterns: ["dist", ".cache", "reports", "bench", "examples", "docs"],
    coverageAnalysis: "perTest",
    incremental: true,
    incrementalFile: `reports/mutation/${name}.incremental.json`,
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
    timeoutMS: 20_000,
    reporters: ["html", "json", "clear-text", "progress"],
    htmlReporter: { fileName: `${dir}/index.html` },
    jsonReporter: { fileName: `${dir}/mutation.json` },
    thresholds: { high: 90, low: 80, break: null },
    tempDirName: `.stryker-tmp/${name}`,
    cleanTempDir: true,
  });
  const results = await stryker.runMutationTest();
  const count = (status) => results.filter((r) => r.status === status).length;
  const killed = count("Killed") + count("Timeout");
  const survived = count("Survived") + count("NoCoverage");
  summary.push({
    module: name,
    mutants: results.length,
    killed,
    survived,
    invalid: count("CompileError") + count("RuntimeError"),
    ignored: count("Ignored"),
    score: killed + survived === 0 ? 100 : (100 * killed) / (killed + survived),
    seconds: Math.round((Date.now() - started) / 1000),
  });
}

if (summary.length > 0) {
  console.log("\nmodule        mutants  killed  survived  invalid  score    time");
  for (const s of summary) {
    console.log(
      `${s.module.padEnd(13)} ${String(s.mutants).padStart(7)} ${String(s.killed).padStart(7)} ${String(s.survived).padStart(9)} ${String(s.invalid).padStart(8)}  ${s.score.toFixed(1).padStart(5)}%  ${s.seconds}s`,
    );
  }
}
