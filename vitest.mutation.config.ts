import { configDefaults, defineConfig } from "vitest/config";
import base from "./vitest.config.js";

// The tests of the module under mutation (scripts/mutation.mjs sets them, comma-separated globs,
// "!" to leave one out): a mutant is run against its own module's tests only.
const globs = (process.env.MUTATION_TESTS ?? "test/**/*.test.ts").split(",");
const include = globs.filter((g) => !g.startsWith("!"));
const exclude = [...configDefaults.exclude, ...globs.filter((g) => g.startsWith("!")).map((g) => g.slice(1))];

// Instrumented code runs several times slower, and a mutation run shares the machine: the heavy
// property tests (a quarter of a million replay ids) get more time than in the plain suite.
// Stryker's worker threads cannot set the umask, which the broker daemon does (test/mutation/worker-umask.ts).
// Each file's temporary directories go when it ends, as in the plain suite (test/temp-dirs.ts).
// One project: the module's tests, in the runner Stryker drives (not the plain suite's two projects).
const { projects: _plainSuiteProjects, ...test } = base.test ?? {};
export default defineConfig({ ...base, test: { ...test, include, exclude, testTimeout: 180_000, setupFiles: ["test/mutation/worker-umask.ts", "test/remove-temp-dirs.ts"] } });
