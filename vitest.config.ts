import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The end-to-end files drive real hosts and take minutes each, the rest seconds: started first,
 * they leave the short files to fill the workers at the end, instead of one worker running a late
 * e2e file alone. Within each group the order is vitest's own (longest last time, else largest).
 */
class RealHostsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const realHost = (file: TestSpecification) => /[\\/]test[\\/]e2e[\\/]/.test(file.moduleId);
    return [...sorted.filter(realHost), ...sorted.filter((file) => !realHost(file))];
  }
}

/** Files that replace a module (`vi.mock`) need a module graph of their own. */
const OWN_MODULES = ["test/ledger/group-commit-timer.test.ts"];
const REAL_HOSTS = "test/e2e/**";
/** Every file's temporary directories go when it ends (test/temp-dirs.ts). */
const SETUP = "test/remove-temp-dirs.ts";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Suites spawn real daemons, sockets and child processes; two workers match the two cores CI has.
    maxWorkers: 2,
    sequence: { sequencer: RealHostsFirst },
    projects: [
      // The unit files share a worker's loaded modules: importing the sources afresh for each of
      // some 220 files cost a third of their CPU time. Each file still builds its own state.
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [REAL_HOSTS, ...OWN_MODULES], isolate: false, setupFiles: ["test/fresh-process-state.ts", SETUP] } },
      { extends: true, test: { name: "isolated", include: [`${REAL_HOSTS}/*.test.ts`, ...OWN_MODULES], setupFiles: [SETUP] } },
    ],
  },
});
