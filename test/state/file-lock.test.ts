import { execFileSync, spawn, spawnSync } from "node:child_process";
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LockTimeoutError, withFileLock } from "../../src/state/file-lock.js";
import { processIdentity } from "../../src/state/process-identity.js";
import { tempDir } from "../temp-dirs.js";

const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();

describe("a lock names its holder by pid and by when that process started", () => {
  let holder: ReturnType<typeof spawn>;
  beforeAll(() => {
    holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  });
  afterAll(() => {
    holder.kill("SIGKILL");
  });
  const lockIn = () => join(tempDir("provenant-lock-"), "x.lock");

  it("a process's identity is the boot and its start time; another process's differs; a dead one has none", () => {
    const own = processIdentity(process.pid);
    expect(own).toMatch(new RegExp(`^${boot}/\\d+$`));
    expect(processIdentity(holder.pid!)).toMatch(new RegExp(`^${boot}/\\d+$`));
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    expect(processIdentity(Number(dead.stdout))).toBeNull();
  });

  it("the lock file holds the pid and the identity", () => {
    const lock = lockIn();
    expect(withFileLock(lock, () => readFileSync(lock, "utf8"))).toBe(`${process.pid} ${processIdentity(process.pid)}\n`);
  });

  it("a live pid that is not the process that took the lock (a reboot, a reused pid) holds nothing: its lock is broken", () => {
    const lock = lockIn();
    writeFileSync(lock, `${holder.pid} ${boot}/1\n`);
    expect(withFileLock(lock, () => "taken", 50)).toBe("taken");
    writeFileSync(lock, `${holder.pid} 00000000-0000-0000-0000-000000000000/${processIdentity(holder.pid!)!.split("/")[1]}\n`);
    expect(withFileLock(lock, () => "taken", 50)).toBe("taken");
  });

  it("the process that took it, alive, keeps it; so does a live pid in a lock that names no identity", () => {
    const lock = lockIn();
    writeFileSync(lock, `${holder.pid} ${processIdentity(holder.pid!)}\n`);
    expect(() => withFileLock(lock, () => "taken", 50)).toThrow(LockTimeoutError);
    writeFileSync(lock, `${holder.pid}\n`);
    expect(() => withFileLock(lock, () => "taken", 50)).toThrow(LockTimeoutError);
  });

  it("the start time is the 22nd field of the kernel's stat line, counted after the process's name (which may hold spaces and parentheses)", () => {
    const field22 = (pid: number) => {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    };
    expect(processIdentity(holder.pid!)).toBe(`${boot}/${execFileSync("awk", ["{ print $22 }", `/proc/${holder.pid}/stat`], { encoding: "utf8" }).trim()}`);
    const titled = spawn(process.execPath, ["-e", "process.title = 'a) b (c'; setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      // The title reaches the kernel's name for the process once set.
      for (let i = 0; i < 200 && !readFileSync(`/proc/${titled.pid}/stat`, "utf8").includes("a) b (c"); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      expect(readFileSync(`/proc/${titled.pid}/stat`, "utf8")).toContain("(a) b (c)");
      expect(processIdentity(titled.pid!)).toBe(`${boot}/${field22(titled.pid!)}`);
    } finally {
      titled.kill("SIGKILL");
    }
  });

  it("our own pid is ours from an earlier life; a lock of pid 0 or of a pid written otherwise than the kernel writes it is judged by its age", () => {
    const lock = lockIn();
    writeFileSync(lock, `${process.pid} ${processIdentity(process.pid)}\n`);
    expect(withFileLock(lock, () => "taken", 50)).toBe("taken");
    const aged = (text: string) => {
      writeFileSync(lock, text);
      const then = new Date(Date.now() - 10_000);
      utimesSync(lock, then, then);
    };
    for (const text of ["0\n", `0${holder.pid}\n`]) {
      aged(text);
      expect(withFileLock(lock, () => "taken", 50), text).toBe("taken");
      writeFileSync(lock, text);
      expect(() => withFileLock(lock, () => "taken", 50), text).toThrow(LockTimeoutError);
    }
  });

  it("fuzz: whatever a lock file holds, the lock is taken or the wait times out", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom(`${holder.pid} `, `${holder.pid} x y`, `0${holder.pid}`, `${holder.pid} ${boot}/`)), (text) => {
        const lock = lockIn();
        writeFileSync(lock, text);
        try {
          expect(withFileLock(lock, () => "taken", 20)).toBe("taken");
        } catch (error) {
          expect(error).toBeInstanceOf(LockTimeoutError);
        }
      }),
      { numRuns: 60 },
    );
  });
});
