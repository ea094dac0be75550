// A vitest reporter that writes the run's unhandled errors (an exception thrown after its test
// ended, a rejection nobody awaited) to the file named by PROVENANT_UNHANDLED_ERRORS. vitest fails
// the run on them, but its JSON report leaves them out and says "success": true; test-summary.mjs
// reads this file to count them.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export default class UnhandledErrorsReporter {
  onTestRunEnd(_testModules, unhandledErrors) {
    const file = process.env.PROVENANT_UNHANDLED_ERRORS;
    if (!file) return;
    const errors = unhandledErrors.map((error) => ({
      name: error?.name ?? "Error",
      message: error?.message ?? String(error),
      // Which test file it came from, when vitest knows.
      origin: error?.VITEST_TEST_PATH ?? null,
    }));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify({ unhandledErrors: errors }, null, 2)}\n`);
  }
}
