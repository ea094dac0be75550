import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openClawInstall, REPO } from "./harness/openclaw.js";

/**
 * The adapter's SDK shapes (src/adapters/openclaw/sdk-types.ts) and its entry, type-checked
 * against the installed openclaw 2026.9.6 declarations. The library's own type check runs on
 * Node 20 without OpenClaw, against the structural copy; this is where the copy is held to the
 * real thing.
 */
describe("the adapter against the real OpenClaw plugin SDK types", () => {
  it("compiles test/e2e/sdk-conformance with the real declarations", () => {
    openClawInstall();
    let output = "";
    try {
      execFileSync(process.execPath, [join(REPO, "node_modules/typescript/bin/tsc"), "-p", join(REPO, "test/e2e/sdk-conformance/tsconfig.json")], {
        cwd: REPO,
        encoding: "utf8",
        stdio: "pipe",
      });
    } catch (error) {
      output = String((error as { stdout?: unknown }).stdout ?? error);
    }
    expect(output).toBe("");
  }, 300_000);
});
