import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { processesLeftRunning, stillRunning } from "../../src/state/processes-left-running.js";
import { tempDir } from "../temp-dirs.js";

// Real processes: a command's shell, what it leaves behind, and a process that has nothing to do with it.
const onLinux = existsSync("/proc/self/stat");
/** A temporary directory by the name the kernel gives a working directory (links resolved). */
const temp = (prefix: string): string => realpathSync(tempDir(prefix));
const started: number[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** Runs `script` in `sh` to its end, as a host runs a command; returns the pids it printed. */
function command(script: string): number[] {
  const out = spawnSync("sh", ["-c", script], { encoding: "utf8" }).stdout;
  const pids = out.split(/\s+/).filter(Boolean).map(Number);
  started.push(...pids);
  return pids;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(onLinux)("processes a command left running (Linux /proc)", () => {
  it("what a finished command left in the background, by nohup, setsid or a double fork, is found by pid and name, and runs until it ends", () => {
    const since = Date.now();
    const pids = command("nohup sleep 30 >/dev/null 2>&1 & echo $!; setsid sleep 30 >/dev/null 2>&1 & echo $!; (sh -c 'sleep 30 >/dev/null 2>&1 & echo $!' &)");
    expect(pids).toHaveLength(3);
    // nohup and setsid become sleep by exec: until they have, the process bears their own name.
    spawnSync("timeout", ["5", "sh", "-c", `for p in ${pids.join(" ")}; do while [ "$(cat /proc/$p/comm)" != sleep ]; do sleep 0.01; done; done`]);
    const found = processesLeftRunning(since)!;
    for (const pid of pids) expect(found).toContainEqual(expect.objectContaining({ pid, name: "sleep" }));
    const first = found.find((p) => p.pid === pids[0])!;
    expect(stillRunning(first)).toBe(true);
    process.kill(pids[0]!, "SIGKILL");
    spawnSync("sh", ["-c", `while kill -0 ${pids[0]} 2>/dev/null; do sleep 0.01; done`]);
    expect(stillRunning(first)).toBe(false);
  });

  it("one handed on to init counts where it works in a directory the command ran in or beneath it; the host's own child wherever it works", () => {
    // Inside a directory of the test's own, so the sibling whose name starts with the same letters goes with it.
    const ran = join(temp("provenant-ran-"), "ran");
    mkdirSync(ran);
    const elsewhere = temp("provenant-elsewhere-");
    mkdirSync(join(ran, "sub"));
    mkdirSync(`${ran}-sibling`);
    const since = Date.now();
    const orphan = (cwd: string) => command(`cd ${cwd} && setsid sleep 30 >/dev/null 2>&1 & echo $!`)[0]!;
    const inRan = orphan(ran);
    const beneath = orphan(join(ran, "sub"));
    const sibling = orphan(`${ran}-sibling`);
    const child = spawn("sleep", ["30"], { stdio: "ignore", cwd: elsewhere });
    children.push(child);
    const found = processesLeftRunning(since, process.pid, [ran])!.map((p) => p.pid);
    expect(found).toContain(inRan);
    expect(found).toContain(beneath);
    expect(found).not.toContain(sibling);
    expect(found).toContain(child.pid);
    expect(processesLeftRunning(since, process.pid, [elsewhere])!.map((p) => p.pid)).not.toContain(inRan);
    expect(processesLeftRunning(since, process.pid, [elsewhere, ran])!.map((p) => p.pid)).toContain(inRan);
  });

  it("asked for a process that began after the command (a hook), the host is its nearest ancestor already running then, whose children are found", () => {
    const since = Date.now();
    const hook = spawn("sleep", ["30"], { stdio: "ignore" });
    const left = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(hook, left);
    expect(processesLeftRunning(since, hook.pid!)!.map((p) => p.pid)).toContain(left.pid);
  });

  it.runIf(process.getuid?.() === 0)("a process of another user started during the command is not the command's (run as root, to start one)", () => {
    const since = Date.now();
    const mine = command("setsid sleep 30 >/dev/null 2>&1 & echo $!")[0]!;
    const theirs = spawn("sleep", ["30"], { stdio: "ignore", uid: 65534, gid: 65534 });
    children.push(theirs);
    const found = processesLeftRunning(since)!.map((p) => p.pid);
    expect(found).toContain(mine);
    expect(found).not.toContain(theirs.pid);
  });

  it("a process whose parent the command left running too is found with it (a subshell waiting on its download)", () => {
    const since = Date.now();
    const [subshell] = command("(sleep 30; true) >/dev/null 2>&1 & echo $!");
    let download: number | undefined;
    for (let i = 0; i < 200 && download === undefined; i++) {
      const found = spawnSync("pgrep", ["-P", String(subshell)], { encoding: "utf8" }).stdout.trim();
      if (found !== "") download = Number(found);
    }
    started.push(download!);
    const left = processesLeftRunning(since)!.map((p) => p.pid);
    expect(left).toContain(subshell);
    expect(left).toContain(download);
  });

  it("a pid now naming another process is not the one written down", () => {
    const [self] = processesLeftRunning(0, process.pid)!.filter((p) => p.pid === process.pid);
    expect(self).toBeUndefined(); // this process is never one of them
    expect(stillRunning({ pid: process.pid, identity: "another-boot/1", name: "node" })).toBe(false);
    expect(stillRunning({ pid: 2 ** 22 + 1, identity: "x/1", name: "gone" })).toBe(false);
  });

  it("a process started before the command, this process and its ancestors are not found; a child this process starts is", () => {
    const before = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(before);
    spawnSync("sleep", ["1.2"]);
    const since = Date.now();
    const during = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(during);
    const found = processesLeftRunning(since)!.map((p) => p.pid);
    expect(found).toContain(during.pid);
    expect(found).not.toContain(before.pid);
    expect(found).not.toContain(process.pid);
    expect(found).not.toContain(process.ppid);
  });

  it("what a process already running before the command starts during it (the owner's editor, a test runner's next worker) is not found", async () => {
    // Starts a child when told to, as an editor starts a language server while the command runs.
    const editor = spawn("node", ["-e", "process.stdin.once('data', () => { const c = require('child_process').spawn('sleep', ['30'], { stdio: 'ignore' }); console.log(c.pid); })"], { stdio: ["pipe", "pipe", "ignore"] });
    children.push(editor);
    await sleep(1300);
    const since = Date.now();
    const spawned = new Promise<number>((resolve) => editor.stdout!.once("data", (chunk: Buffer) => resolve(Number(String(chunk).trim()))));
    editor.stdin!.write("go\n");
    const pid = await spawned;
    started.push(pid);
    const mine = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(mine);
    const found = processesLeftRunning(since)!.map((p) => p.pid);
    expect(found).not.toContain(pid);
    expect(found).toContain(mine.pid);
  });

  for (const [name, found] of [
    ["editor", false],
    ["systemd", true],
  ] as const) {
    it(`what an ancestor of the host named ${name} starts during the command is ${found ? "found: it reaps orphans (a desktop's service manager)" : "not found: it does not reap orphans"}`, async () => {
      // The ancestor: node under another name (a process's name is the file it was started as).
      const dir = temp("provenant-reaper-");
      symlinkSync(process.execPath, join(dir, name));
      const script = "const { spawn } = require('child_process'); const out = (c) => console.log(c.pid); out(spawn('sleep', ['30'], { stdio: 'ignore' })); process.stdin.once('data', () => out(spawn('sleep', ['30'], { stdio: 'ignore' })));";
      const ancestor = spawn(join(dir, name), ["-e", script], { stdio: ["pipe", "pipe", "ignore"] });
      children.push(ancestor);
      const pids: number[] = [];
      const next = () => new Promise<number>((resolve) => ancestor.stdout!.once("data", (chunk: Buffer) => resolve(Number(String(chunk).trim()))));
      const host = await next();
      started.push(host);
      expect(readFileSync(`/proc/${ancestor.pid}/stat`, "utf8")).toContain(`(${name})`);
      await sleep(300);
      const since = Date.now();
      const later = next();
      ancestor.stdin!.write("go\n");
      pids.push(await later);
      started.push(...pids);
      // Seen from the host (a hook's parent, say): the ancestor's new child.
      expect(processesLeftRunning(since, host)!.map((p) => p.pid).includes(pids[0]!)).toBe(found);
    });
  }
});
