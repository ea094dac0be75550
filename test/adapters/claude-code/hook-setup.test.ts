import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hookConfig } from "../../../src/adapters/claude-code/hook-setup.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "provenant-hook-setup-"));
  dirs.push(dir);
  return dir;
}

describe("the configuration Claude Code's hooks run with", () => {
  it("rule: a project cannot configure its own trust (a cloned repository's .claude/provenant.json is not read)", () => {
    const home = tempDir();
    const project = join(home, "project");
    mkdirSync(join(project, ".claude"), { recursive: true });
    writeFileSync(join(project, ".claude", "provenant.json"), JSON.stringify({ fileTrust: { "**": "trusted" }, toolOverrides: { Bash: { "*": "allow" } } }));
    expect(hookConfig(null, home).config).toEqual({ host: "claude-code", maxIterations: 500 });
  });

  it("reads the user's ~/.claude/provenant.json, with host always claude-code", () => {
    const home = tempDir();
    mkdirSync(join(home, ".claude"));
    writeFileSync(join(home, ".claude", "provenant.json"), JSON.stringify({ fileTrust: { "**": "external" } }));
    expect(hookConfig(null, home).config).toEqual({ host: "claude-code", maxIterations: 500, fileTrust: { "**": "external" } });
  });

  it("a file named with --config wins, and one that cannot be read or parsed is an error naming it", () => {
    const home = tempDir();
    const file = join(home, "mine.json");
    writeFileSync(file, JSON.stringify({ maxIterations: 50 }));
    expect(hookConfig(file, home).config).toEqual({ host: "claude-code", maxIterations: 50 });
    expect(() => hookConfig(join(home, "missing.json"), home)).toThrow(/missing\.json/);
    writeFileSync(file, "{not json");
    expect(() => hookConfig(file, home)).toThrow(/is not JSON/);
    writeFileSync(file, JSON.stringify({ host: "openclaw" }));
    expect(() => hookConfig(file, home)).toThrow(/host "claude-code"/);
  });
});
