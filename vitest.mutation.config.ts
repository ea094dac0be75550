import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

// The tests of the module under mutation (scripts/mutation.mjs sets them, comma-separated): a
// mutant is run against its own module's tests only.
const include = (process.env.MUTATION_TESTS ?? "test/**/*.test.ts").split(",");

export default defineConfig({ ...base, test: { ...base.test, include } });
