#!/usr/bin/env node
// Turns vitest's JSON report into the one closing line CI reads: "N passed, N failed[, N skipped]".
// A run that executed no test is a failure, not a success.
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  console.error("usage: test-summary.mjs <vitest-json-report>");
  process.exit(2);
}
let report;
try {
  report = JSON.parse(readFileSync(file, "utf8"));
} catch (error) {
  console.error(`test-summary: cannot read ${file}: ${error.message}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
// A test file that failed with no failing test of its own failed to load or run at all: one failure
// more. A file that failed because a test in it did is already counted by that test.
const brokenFiles = (report.testResults ?? []).filter(
  (suite) => suite.status === "failed" && !(suite.assertionResults ?? []).some((test) => test.status === "failed"),
).length;
const failed = (report.numFailedTests ?? 0) + brokenFiles;
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
