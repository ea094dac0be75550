import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The closing line CI reads, from vitest's JSON report: each failure counted once.
const dir = mkdtempSync(join(tmpdir(), "provenant-summary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function summarise(report: unknown): { status: number | null; stdout: string } {
  const file = join(dir, `${n++}.json`);
  writeFileSync(file, JSON.stringify(report));
  return spawnSync(process.execPath, ["scripts/test-summary.mjs", file], { encoding: "utf8" });
}

const test = (fullName: string, status: string): unknown => ({ fullName, status });

describe("scripts/test-summary.mjs", () => {
  it("counts a failing test once, not again for the file and describe block it sits in", () => {
    const out = summarise({
      numPassedTests: 3,
      numFailedTests: 1,
      numFailedTestSuites: 2,
      testResults: [{ status: "failed", assertionResults: [test("a", "passed"), test("b", "failed")] }, { status: "passed", assertionResults: [test("c", "passed"), test("d", "passed")] }],
    });
    expect(out).toMatchObject({ status: 1, stdout: "3 passed, 1 failed\n" });
  });

  it("counts a file that failed to load, with no test of its own failing, as a failure", () => {
    const out = summarise({ numPassedTests: 2, numFailedTests: 0, numFailedTestSuites: 1, testResults: [{ status: "failed", assertionResults: [] }, { status: "passed", assertionResults: [test("a", "passed"), test("b", "passed")] }] });
    expect(out).toMatchObject({ status: 1, stdout: "2 passed, 1 failed\n" });
  });

  it("fails a run that executed no test, and names every skipped test", () => {
    expect(summarise({ numPassedTests: 0, numFailedTests: 0, testResults: [] })).toMatchObject({ status: 1, stdout: "0 passed, 0 failed\n" });
    const skipped = summarise({ numPassedTests: 1, numFailedTests: 0, numPendingTests: 1, testResults: [{ status: "passed", assertionResults: [test("a", "passed"), test("b", "skipped")] }] });
    expect(skipped).toMatchObject({ status: 0, stdout: "skipped: b\n1 passed, 0 failed, 1 skipped\n" });
  });

  it("fails, with a line CI can read, on a report it cannot read", () => {
    const file = join(dir, "broken.json");
    writeFileSync(file, "{");
    const out = spawnSync(process.execPath, ["scripts/test-summary.mjs", file], { encoding: "utf8" });
    expect(out).toMatchObject({ status: 1, stdout: "0 passed, 1 failed\n" });
  });
});
