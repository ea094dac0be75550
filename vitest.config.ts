import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Suites spawn real daemons, sockets and child processes; two workers match the two cores CI has.
    maxWorkers: 2,
  },
});
