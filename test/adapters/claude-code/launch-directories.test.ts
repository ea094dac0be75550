import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { addDirArguments, keepsNoTranscript, launchDirectories, settingsDirectories, takesContentBlocks } from "../../../src/adapters/claude-code/launch-directories.js";

const made: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "provenant-launch-"));
  made.push(dir);
  return dir;
};

describe("the directories Claude Code was launched with", () => {
  it("--add-dir takes every word up to the next option, and =<dir>; repeated, they add up", () => {
    expect(addDirArguments(["claude", "-p", "hi", "--add-dir", "../a", "/b", "--allowedTools", "Bash", "--add-dir=c", "--add-dir", "d"])).toEqual(["../a", "/b", "c", "d"]);
    expect(addDirArguments(["claude", "--add-dir"])).toEqual([]);
    expect(addDirArguments(["claude", "--add-dir=", "--add-directory", "x"])).toEqual([]);
    expect(addDirArguments(["claude", "-p", "--add-dir is a flag", "x"])).toEqual([]);
  });

  it("fuzz: any command line gives words of it (or what follows `--add-dir=`), never a throw", () => {
    const word = fc.oneof(fc.constantFrom("--add-dir", "--add-dir=x", "-p", "--model", "dir", ""), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 12 }), (argv) => {
        for (const dir of addDirArguments(argv)) expect(argv.includes(dir) || argv.includes(`--add-dir=${dir}`)).toBe(true);
      }),
    );
  });

  it("are read from the processes above the hook, resolved where each runs", async () => {
    const cwd = scratch();
    // A stand-in for Claude Code: its command line names the directories; a child of it stands in for the hook.
    const claude = spawn("bash", ["-c", "sleep 30 & echo $!; wait", "claude", "-p", "x", "--add-dir", "repo", "/abs/other"], { cwd, stdio: ["ignore", "pipe", "ignore"] });
    children.push(claude);
    const hookPid = await new Promise<number>((resolve) => claude.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
    expect(launchDirectories(hookPid)).toEqual([join(cwd, "repo"), "/abs/other"]);
    // A process that is gone has no ancestors to read.
    expect(launchDirectories(2 ** 22 + 12_345)).toEqual([]);
    // The same command line says its prompts are text (no `--input-format stream-json`); a gone process says nothing.
    expect(takesContentBlocks(hookPid)).toBe(false);
    expect(takesContentBlocks(2 ** 22 + 12_345)).toBeNull();
    // Nor that it keeps no transcript; a Claude Code told so is found above its hook.
    expect(keepsNoTranscript(hookPid)).toBe(false);
    expect(keepsNoTranscript(2 ** 22 + 12_345)).toBeNull();
    const unkept = spawn("bash", ["-c", "sleep 30 & echo $!; wait", "claude", "-p", "x", "--no-session-persistence"], { cwd, stdio: ["ignore", "pipe", "ignore"] });
    children.push(unkept);
    const unkeptHook = await new Promise<number>((resolve) => unkept.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
    expect(keepsNoTranscript(unkeptHook)).toBe(true);
  });

  it("a command line eight processes above the hook or further is not read: the walk stops there", async () => {
    const cwd = scratch();
    // A shell that runs itself `depth` times over and prints the pid of the innermost one's child.
    writeFileSync(join(cwd, "chain.sh"), 'if [ "$1" -gt 0 ]; then bash ./chain.sh $(($1 - 1)); else sleep 30 & echo $!; wait; fi; :\n');
    const leafBelow = async (depth: number, dir: string) => {
      const top = spawn("bash", ["-c", `bash ./chain.sh ${depth}; :`, "claude", "--add-dir", dir], { cwd, stdio: ["ignore", "pipe", "ignore"] });
      children.push(top);
      const pid = await new Promise<number>((resolve) => top.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
      expect(pid).toBeGreaterThan(1);
      return pid;
    };
    // sleep (the hook's place), 7 chain shells, then the one with --add-dir, eighth above: not read.
    expect(launchDirectories(await leafBelow(6, "/far/away"))).toEqual([]);
    // One level nearer, the seventh above: read.
    expect(launchDirectories(await leafBelow(5, "/near"))).toEqual(["/near"]);
  });

  it("and from permissions.additionalDirectories of the user's and the project's settings (relative to the project, ~ to the home)", () => {
    const root = scratch();
    const home = join(root, "home");
    const project = join(home, "app");
    mkdirSync(join(home, ".claude"), { recursive: true });
    mkdirSync(join(project, ".claude"), { recursive: true });
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { additionalDirectories: ["~/Downloads/repo"] } }));
    writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ permissions: { additionalDirectories: ["../shared", 7, ""] } }));
    writeFileSync(join(project, ".claude", "settings.local.json"), JSON.stringify({ permissions: { additionalDirectories: ["/srv/mine"] } }));
    expect(settingsDirectories(project, home)).toEqual([join(home, "Downloads", "repo"), join(home, "shared"), "/srv/mine"]);
    writeFileSync(join(project, ".claude", "settings.local.json"), "{ not json");
    expect(settingsDirectories(project, home)).toEqual([join(home, "Downloads", "repo"), join(home, "shared")]);
    // A list that is no list names nothing.
    writeFileSync(join(project, ".claude", "settings.local.json"), JSON.stringify({ permissions: { additionalDirectories: "/srv/mine" } }));
    expect(settingsDirectories(project, home)).toEqual([join(home, "Downloads", "repo"), join(home, "shared")]);
    expect(settingsDirectories(join(root, "none"), join(root, "nobody"))).toEqual([]);
  });
});
