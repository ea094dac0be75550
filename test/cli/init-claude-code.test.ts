import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function init(home: string, cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [MAIN, "init", "claude-code", ...args], { cwd, encoding: "utf8", env: { ...process.env, HOME: home } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("provenant init claude-code", () => {
  it("installs into the user's settings by default, keeps other settings and hooks, backs up, and uninstalls exactly", () => {
    const home = mkdtempSync(join(tmpdir(), "provenant-init-"));
    made.push(home);
    const settings = join(home, ".claude", "settings.json");
    mkdirSync(join(home, ".claude"));
    const mine = { theme: "dark", hooks: { PostToolUse: [{ matcher: "Edit", hooks: [{ type: "command", command: "prettier --write" }] }] } };
    writeFileSync(settings, JSON.stringify(mine));
    expect(init(home, home).status).toBe(0);
    const installed = JSON.parse(readFileSync(settings, "utf8")) as { theme: string; hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(installed.theme).toBe("dark");
    expect(installed.hooks.PostToolUse?.[0]).toEqual(mine.hooks.PostToolUse[0]);
    expect(installed.hooks.PreToolUse?.[0]?.hooks[0]?.command).toMatch(/dist\/cli\/hook-main\.js' claude-code --timeout 120$/);
    expect(installed.hooks.Stop?.[0]?.hooks[0]?.command).toMatch(/dist\/cli\/hook-main\.js' claude-code$/);
    expect(JSON.parse(readFileSync(`${settings}.provenant-backup`, "utf8"))).toEqual(mine);
    expect(init(home, home).stdout).toMatch(/nothing to change/);
    expect(init(home, home, "--uninstall").status).toBe(0);
    expect(JSON.parse(readFileSync(settings, "utf8"))).toEqual(mine);
  });

  it("--project writes the project's .claude/settings.json; a settings file that is not JSON is left untouched with exit 2", () => {
    const home = mkdtempSync(join(tmpdir(), "provenant-init-"));
    made.push(home);
    const project = join(home, "p");
    mkdirSync(join(project, ".claude"), { recursive: true });
    expect(init(home, project, "--project").status).toBe(0);
    expect(existsSync(join(project, ".claude", "settings.json"))).toBe(true);
    expect(existsSync(join(home, ".claude", "settings.json"))).toBe(false);
    writeFileSync(join(project, ".claude", "settings.json"), "{ not json");
    const bad = init(home, project, "--project");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/settings\.json is not JSON .*left as it is/);
    expect(readFileSync(join(project, ".claude", "settings.json"), "utf8")).toBe("{ not json");
    expect(init(home, project, "--project", "--user").status).toBe(2);
  });
});
