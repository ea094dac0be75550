import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The closing line CI reads, from vitest's JSON report: each failure counted once.
const dir = mkdtempSync(join(tmpdir(), "provenant-summary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const test = (fullName: string, status: string): unknown => ({ fullName, status });

function summarise(report: unknown, extra: readonly string[] = []): { status: number | null; stdout: string } {
  const file = join(dir, `${n++}.json`);
  writeFileSync(file, JSON.stringify(report));
  return spawnSync(process.execPath, ["scripts/test-summary.mjs", file, ...extra], { encoding: "utf8" });
}

function unhandledFile(errors: readonly unknown[]): string {
  const file = join(dir, `${n++}.unhandled.json`);
  writeFileSync(file, JSON.stringify({ unhandledErrors: errors }));
  return file;
}

// vitest's JSON report of a run whose two tests passed but which threw after one of them ended.
const cleanLooking = { numPassedTests: 2, numFailedTests: 0, success: true, testResults: [{ status: "passed", assertionResults: [test("a", "passed"), test("b", "passed")] }] };


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

  it("counts each unhandled error as a failure and names it", () => {
    const errors = unhandledFile([{ name: "Error", message: "boom after the test", origin: "test/x.test.ts" }, { name: "TypeError", message: "late", origin: null }]);
    expect(summarise(cleanLooking, ["--unhandled", errors, "--vitest-status", "1"])).toMatchObject({
      status: 1,
      stdout: "unhandled error: Error: boom after the test (in test/x.test.ts)\nunhandled error: TypeError: late\n2 passed, 2 failed\n",
    });
    expect(summarise(cleanLooking, ["--unhandled", unhandledFile([]), "--vitest-status", "0"])).toMatchObject({ status: 0, stdout: "2 passed, 0 failed\n" });
  });

  it("never contradicts vitest's exit status: a failing exit with a clean report is one failure", () => {
    expect(summarise(cleanLooking, ["--vitest-status", "1"])).toMatchObject({ status: 1, stdout: expect.stringMatching(/2 passed, 1 failed\n$/) });
    expect(summarise(cleanLooking, ["--unhandled", join(dir, "never-written.json"), "--vitest-status", "1"])).toMatchObject({ status: 1 });
    expect(summarise(cleanLooking, ["--vitest-status", "0"])).toMatchObject({ status: 0, stdout: "2 passed, 0 failed\n" });
  });

  it("refuses arguments it does not understand", () => {
    expect(summarise(cleanLooking, ["--vitest-status", "x"]).status).toBe(2);
    expect(summarise(cleanLooking, ["another.json"]).status).toBe(2);
  });

  it("with the real vitest and reporter: an error thrown after a passing test makes the line say failed, as vitest's exit does", () => {
    const project = mkdtempSync(join(tmpdir(), "provenant-unhandled-"));
    try {
      writeFileSync(
        join(project, "leak.test.ts"),
        [
          'import { expect, it } from "vitest";',
          'it("passes, then throws from a timer", async () => {',
          '  setTimeout(() => { throw new Error("thrown after the test"); }, 1);',
          "  expect(1).toBe(1);",
          "});",
          'it("outlives the timer", async () => { await new Promise((r) => setTimeout(r, 100)); });',
          "",
        ].join("\n"),
      );
      const json = join(project, "report.json");
      const unhandled = join(project, "unhandled.json");
      const vitest = spawnSync(
        process.execPath,
        ["node_modules/vitest/vitest.mjs", "run", "--root", project, "--reporter=json", "--reporter=./scripts/unhandled-errors-reporter.mjs", `--outputFile.json=${json}`],
        { encoding: "utf8", env: { ...process.env, PROVENANT_UNHANDLED_ERRORS: unhandled } },
      );
      expect(vitest.status).toBe(1);
      const out = spawnSync(process.execPath, ["scripts/test-summary.mjs", json, "--unhandled", unhandled, "--vitest-status", String(vitest.status)], { encoding: "utf8" });
      expect(out.status).toBe(1);
      expect(out.stdout).toMatch(/^unhandled error: Error: thrown after the test \(in .*leak\.test\.ts\)\n2 passed, 1 failed\n$/);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it("fails, with a line CI can read, on a report it cannot read", () => {
    const file = join(dir, "broken.json");
    writeFileSync(file, "{");
    const out = spawnSync(process.execPath, ["scripts/test-summary.mjs", file], { encoding: "utf8" });
    expect(out).toMatchObject({ status: 1, stdout: "0 passed, 1 failed\n" });
  });
});
