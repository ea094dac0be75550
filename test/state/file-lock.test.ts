import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LockTimeoutError, withFileLock } from "../../src/state/file-lock.js";
import { processIdentity } from "../../src/state/process-identity.js";
import { tempDirs } from "../temp-dirs.js";

const temp = tempDirs();
const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();

describe("a lock names its holder by pid and by when that process started", () => {
  let holder: ReturnType<typeof spawn>;
  beforeAll(() => {
    holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  });
  afterAll(() => {
    holder.kill("SIGKILL");
  });
  const lockIn = () => join(temp("provenant-lock-"), "x.lock");

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
