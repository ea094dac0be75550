import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;

/** How a test reaches this checkout's build: the CLI helper, or a path into its dist/ (not a path a test only writes down). */
const RUNS_BUILD = /run-cli\.js|"\.\.\/\.\.\/dist\/|join\((?:REPO|process\.cwd\(\)), "dist[/"]/;

interface MutationModule {
  readonly tests: readonly string[];
}

/** Every test file of the project, relative to its root. */
function testFiles(dir = join(ROOT, "test")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(ROOT, path)] : [];
  });
}

/** The files a module's globs take, as vitest.mutation.config.ts reads them ("!" leaves one out). */
function filesOf(module: MutationModule, files: readonly string[]): string[] {
  const include = picomatch(module.tests.filter((g) => !g.startsWith("!")));
  const exclude = picomatch(module.tests.filter((g) => g.startsWith("!")).map((g) => g.slice(1)));
  return files.filter((f) => include(f) && !exclude(f));
}

describe("the mutation modules (scripts/mutation-modules.mjs)", () => {
  it("take no test that runs the built program: a mutation sandbox has no dist/, so one such test fails the module's whole run", async () => {
    const specifier = pathToFileURL(join(ROOT, "scripts", "mutation-modules.mjs")).href;
    const { MUTATION_MODULES } = (await import(specifier)) as { MUTATION_MODULES: Record<string, MutationModule> };
    const files = testFiles();
    const runsBuild = new Set(files.filter((f) => RUNS_BUILD.test(readFileSync(join(ROOT, f), "utf8"))));
    // The check sees what it is for: these do run the build.
    for (const f of ["test/cli/cli-errors.test.ts", "test/broker/interop.test.ts", "test/ledger/parallel-verify.test.ts", "test/service/guard-service.test.ts"]) expect(runsBuild.has(f), f).toBe(true);
    const offending = Object.entries(MUTATION_MODULES).flatMap(([name, module]) => filesOf(module, files).filter((f) => runsBuild.has(f)).map((f) => `${name}: ${f}`));
    expect(offending).toEqual([]);
    for (const [name, module] of Object.entries(MUTATION_MODULES)) expect(filesOf(module, files).length, name).toBeGreaterThan(0);
  });
});
