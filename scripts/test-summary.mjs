#!/usr/bin/env node
// Turns vitest's JSON report into the one closing line CI reads: "N passed, N failed[, N skipped]".
//
//   test-summary.mjs <vitest-json-report> [--unhandled <file>] [--vitest-status <exit status>]
//
// A run that executed no test is a failure, not a success. Unhandled errors (written to the
// --unhandled file by unhandled-errors-reporter.mjs; vitest's JSON report leaves them out) count
// as failures, one each. And the line never contradicts vitest: if vitest exited non-zero and
// nothing above accounts for it, that is one failure more.
import { existsSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
let file;
let unhandledFile;
let vitestStatus;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--unhandled") unhandledFile = args[++i];
  else if (args[i] === "--vitest-status") vitestStatus = Number(args[++i]);
  else if (file === undefined) file = args[i];
  else file = null;
}
if (!file || (vitestStatus !== undefined && !Number.isInteger(vitestStatus)) || (args.includes("--unhandled") && !unhandledFile)) {
  console.error("usage: test-summary.mjs <vitest-json-report> [--unhandled <file>] [--vitest-status <exit status>]");
  process.exit(2);
}

function fail(message) {
  console.error(`test-summary: ${message}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}

let report;
try {
  report = JSON.parse(readFileSync(file, "utf8"));
} catch (error) {
  fail(`cannot read ${file}: ${error.message}`);
}

let unhandled = [];
if (unhandledFile !== undefined && existsSync(unhandledFile)) {
  try {
    unhandled = JSON.parse(readFileSync(unhandledFile, "utf8")).unhandledErrors;
    if (!Array.isArray(unhandled)) throw new Error("no unhandledErrors list");
  } catch (error) {
    fail(`cannot read ${unhandledFile}: ${error.message}`);
  }
}

const passed = report.numPassedTests ?? 0;
// A test file that failed with no failing test of its own failed to load or run at all: one failure
// more. A file that failed because a test in it did is already counted by that test.
const brokenFiles = (report.testResults ?? []).filter(
  (suite) => suite.status === "failed" && !(suite.assertionResults ?? []).some((test) => test.status === "failed"),
).length;
let failed = (report.numFailedTests ?? 0) + brokenFiles + unhandled.length;
for (const error of unhandled) {
  console.log(`unhandled error: ${error.name}: ${error.message}${error.origin ? ` (in ${error.origin})` : ""}`);
}
if (vitestStatus !== undefined && vitestStatus !== 0 && failed === 0) {
  console.log(`vitest exited with status ${vitestStatus} although its report shows no failure: counted as one`);
  failed = 1;
}
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
const line = `${passed} passed, ${failed} failed` + (skipped > 0 ? `, ${skipped} skipped` : "");
if (skipped > 0) {
  for (const suite of report.testResults ?? []) {
    for (const test of suite.assertionResults ?? []) {
      if (test.status === "pending" || test.status === "skipped" || test.status === "todo") {
        console.log(`skipped: ${test.fullName}`);
      }
    }
  }
}
console.log(line);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
