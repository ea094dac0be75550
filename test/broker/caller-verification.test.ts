import { type ChildProcess, spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { callerArgv0, callerExe, verifyCaller } from "../../src/broker/caller-verification.js";

// The caller allow-list read from /proc for real processes started here: the kernel's record of
// what the peer executed and with which environment, not a model of it.
const SLEEP = realpathSync("/bin/sleep");
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** A process running `sleep` with exactly `env`, once its exec is visible in /proc. */
async function sleeper(env: Record<string, string>, argv0?: string): Promise<number> {
  const child = spawn(SLEEP, ["30"], { env, stdio: "ignore", ...(argv0 === undefined ? {} : { argv0 }) });
  children.push(child);
  const pid = child.pid as number;
  await expect.poll(() => callerExe(pid), { timeout: 10_000 }).toBe(SLEEP);
  return pid;
}

/** A pid no process can have: above the kernel's hard limit (2^22, PID_MAX_LIMIT). */
const NO_SUCH_PID = 4_194_305;

describe("verifyCaller: the executable allow-list", () => {
  it("an empty list lets any caller through without reading /proc", () => {
    expect(verifyCaller(NO_SUCH_PID, [], true)).toEqual({ ok: true, exe: undefined });
  });

  it("a listed executable with a clean environment passes, naming the executable", async () => {
    const pid = await sleeper({ PATH: "/usr/bin:/bin" });
    expect(verifyCaller(pid, ["/usr/bin/false", SLEEP], true)).toEqual({ ok: true, exe: SLEEP });
  });

  it("an executable not on the list is an unauthorized caller, whatever argv[0] claims", async () => {
    const pid = await sleeper({ PATH: "/usr/bin:/bin" }, "/usr/bin/claw-wrap");
    const verdict = verifyCaller(pid, ["/usr/bin/claw-wrap"], true);
    expect(verdict).toEqual({ ok: false, error: "unauthorized caller", detail: `caller executable ${SLEEP} not allowed` });
  });

  for (const name of ["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "NODE_OPTIONS", "NODE_PATH"]) {
    it(`a listed executable started with ${name} is refused (it can be steered at exec time)`, async () => {
      const pid = await sleeper({ PATH: "/usr/bin:/bin", [name]: "" });
      expect(verifyCaller(pid, [SLEEP], true)).toEqual({ ok: false, error: "unauthorized caller", detail: `caller started with ${name}` });
    });
  }

  it("a variable that only contains a hijack name, or starts with one as a prefix, is not a hijack", async () => {
    const pid = await sleeper({ PATH: "/usr/bin:/bin", MY_LD_PRELOAD: "x", LD_PRELOADED: "x", NODE_OPTIONS_NOTE: "x" });
    expect(verifyCaller(pid, [SLEEP], true)).toEqual({ ok: true, exe: SLEEP });
  });

  it("an unreadable executable is refused when unverified callers are denied, and let through otherwise", () => {
    expect(verifyCaller(NO_SUCH_PID, [SLEEP], true)).toEqual({ ok: false, error: "failed to verify caller", detail: "caller executable unreadable" });
    expect(verifyCaller(NO_SUCH_PID, [SLEEP], false)).toEqual({ ok: true, exe: undefined });
  });
});

describe("callerExe and callerArgv0", () => {
  it("read the executable and the basename of argv[0] of a live process", async () => {
    const pid = await sleeper({ PATH: "/usr/bin:/bin" }, "/opt/tools/claw-wrap");
    expect(callerExe(pid)).toBe(SLEEP);
    expect(callerArgv0(pid)).toBe("claw-wrap");
  });

  it("are undefined for a process that does not exist", () => {
    expect(callerExe(NO_SUCH_PID)).toBeUndefined();
    expect(callerArgv0(NO_SUCH_PID)).toBeUndefined();
  });

  it("argv[0] of an empty string is undefined, not a name", async () => {
    const pid = await sleeper({ PATH: "/usr/bin:/bin" }, "");
    expect(callerArgv0(pid)).toBeUndefined();
  });
});
