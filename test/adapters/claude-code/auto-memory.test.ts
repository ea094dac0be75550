import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { autoMemoryDirectories, projectKey } from "../../../src/adapters/claude-code/auto-memory.js";
import { startInstructionFiles } from "../../../src/adapters/claude-code/instruction-files.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
/** A home and, in it, a project; Claude Code's projects directory in the home. */
function machine() {
  const home = mkdtempSync(join(tmpdir(), "provenant-memory-"));
  made.push(home);
  const project = join(home, "work", "my.app");
  mkdirSync(project, { recursive: true });
  const memoryOf = (path: string) => {
    const dir = join(home, ".claude", "projects", projectKey(path), "memory");
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  return { home, project, memoryOf };
}

describe("Claude Code's auto memory, found where it keeps it", () => {
  it("the key is the path with every character but a letter or a digit made `-`", () => {
    expect(projectKey("/tmp/provenant-cc-CRvhJA/project")).toBe("-tmp-provenant-cc-CRvhJA-project");
    expect(projectKey("/home/u/my.app_2/é")).toBe("-home-u-my-app-2--");
  });

  it("the project's own directory; none when Claude Code has kept no memory for it", () => {
    const { home, project, memoryOf } = machine();
    expect(autoMemoryDirectories(project, home)).toEqual([]);
    const memory = memoryOf(project);
    expect(autoMemoryDirectories(project, home)).toEqual([memory]);
  });

  it("in a git working copy, the root's (where Claude Code keys it) as well as the start directory's", () => {
    const { home, project, memoryOf } = machine();
    mkdirSync(join(project, ".git"));
    const sub = join(project, "pkg", "sub");
    mkdirSync(sub, { recursive: true });
    const rootMemory = memoryOf(project);
    const subMemory = memoryOf(sub);
    expect(autoMemoryDirectories(sub, home)).toEqual([subMemory, rootMemory]);
  });

  it("a linked worktree's own and its main working copy's", () => {
    const { home, project, memoryOf } = machine();
    mkdirSync(join(project, ".git", "worktrees", "feature"), { recursive: true });
    const worktree = join(home, "work", "feature");
    mkdirSync(worktree);
    writeFileSync(join(worktree, ".git"), `gitdir: ${join(project, ".git", "worktrees", "feature")}\n`);
    const main = memoryOf(project);
    const own = memoryOf(worktree);
    expect(autoMemoryDirectories(worktree, home)).toEqual([own, main]);
    // The line as git writes it may end in spaces or a carriage return.
    writeFileSync(join(worktree, ".git"), `gitdir: ${join(project, ".git", "worktrees", "feature")}  \r\n`);
    expect(autoMemoryDirectories(worktree, home)).toEqual([own, main]);
    // A `.git` file that names no gitdir still makes its directory a root.
    writeFileSync(join(worktree, ".git"), "nothing here\n");
    expect(autoMemoryDirectories(worktree, home)).toEqual([own]);
  });

  it("a key longer than Claude Code keeps: every directory with the cut key and a hash", () => {
    const { home } = machine();
    const deep = join(home, "d".repeat(120), "e".repeat(120));
    mkdirSync(deep, { recursive: true });
    const cut = projectKey(deep).slice(0, 200);
    const projects = join(home, ".claude", "projects");
    for (const name of [`${cut}-1a2b3c`, `${cut}x-other`, cut]) mkdirSync(join(projects, name, "memory"), { recursive: true });
    expect(autoMemoryDirectories(deep, home)).toEqual([join(projects, `${cut}-1a2b3c`, "memory")]);
    // A key of exactly 200 characters is kept whole.
    const exact = join(home, "f".repeat(200 - projectKey(home).length - 1));
    mkdirSync(exact);
    expect(projectKey(exact)).toHaveLength(200);
    mkdirSync(join(projects, projectKey(exact), "memory"), { recursive: true });
    expect(autoMemoryDirectories(exact, home)).toEqual([join(projects, projectKey(exact), "memory")]);
    // No projects directory at all: nothing.
    expect(autoMemoryDirectories(deep, join(home, "nobody"))).toEqual([]);
  });

  it("`autoMemoryDirectory` of the user's and the project's settings, `~/` in the home", () => {
    const { home, project } = machine();
    mkdirSync(join(home, ".claude"), { recursive: true });
    mkdirSync(join(project, ".claude"), { recursive: true });
    mkdirSync(join(home, "notes", "mem"), { recursive: true });
    mkdirSync(join(project, "team-mem"));
    mkdirSync(join(project, "local-mem"));
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "~/notes/mem" }));
    writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "team-mem" }));
    writeFileSync(join(project, ".claude", "settings.local.json"), JSON.stringify({ autoMemoryDirectory: "local-mem" }));
    expect(autoMemoryDirectories(project, home)).toEqual([join(home, "notes", "mem"), join(project, "team-mem"), join(project, "local-mem")]);
    // A FIFO where a settings file or `.git` would be is not read (it would hold the hook).
    const fifo = machine();
    mkdirSync(join(fifo.project, ".claude"));
    execFileSync("mkfifo", [join(fifo.project, ".claude", "settings.json"), join(fifo.project, ".git")]);
    const fifoMemory = fifo.memoryOf(fifo.project);
    expect(autoMemoryDirectories(fifo.project, fifo.home)).toEqual([fifoMemory]);
    // A file that is no JSON, a value that is no directory name: nothing, and no throw.
    writeFileSync(join(project, ".claude", "settings.json"), "{ not json");
    writeFileSync(join(project, ".claude", "settings.local.json"), JSON.stringify({ autoMemoryDirectory: 5 }));
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "" }));
    expect(autoMemoryDirectories(project, home)).toEqual([]);
  });

  it("the notes enter the files a session starts with, the index and every note beneath it", () => {
    const { home, project, memoryOf } = machine();
    const memory = memoryOf(project);
    writeFileSync(join(memory, "MEMORY.md"), "- [deploy](deploy.md): how we deploy\n");
    writeFileSync(join(memory, "deploy.md"), "---\nname: deploy\n---\nrun make deploy\n");
    mkdirSync(join(memory, "personal"));
    writeFileSync(join(memory, "personal", "me.md"), "likes tabs\n");
    const files = startInstructionFiles(project, home, [], autoMemoryDirectories(project, home)).files;
    expect(files).toEqual(expect.arrayContaining([join(memory, "MEMORY.md"), join(memory, "deploy.md"), join(memory, "personal", "me.md")]));
  });
});
