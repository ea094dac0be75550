import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildWrapperExecutable } from "../../src/broker/wrapper-executable.js";
import { signedRequestLine } from "../../src/broker/broker-client.js";
import { printed, runAttack, writeAttackScripts } from "./fd-passing-attack.js";
import { type Harness, startHarness } from "./harness.js";

interface Outcome {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

describe("provenant-wrap as a single executable, on the caller allow-list", () => {
  let dir: string;
  let wrap: string;
  let h: Harness;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "provenant-wrap-test-"));
    wrap = join(dir, "provenant-wrap");
    process.env.PROVENANT_WRAP_TEST_LONG = "ab34567890yz";
    process.env.PROVENANT_WRAP_TEST_SHORT = "short-value";
    delete process.env.PROVENANT_WRAP_TEST_UNSET;
    await buildWrapperExecutable(wrap);
    for (const name of ["echo", "sh", "sha256sum"]) symlinkSync(wrap, join(dir, name));
    h = await startHarness({
      proxy: { allowed_callers: [wrap] },
      // Exactly 12 characters (the shortest value the check previews), 11, and one that cannot be read.
      credentials: { long: { source: "env:PROVENANT_WRAP_TEST_LONG" }, short: { source: "env:PROVENANT_WRAP_TEST_SHORT" }, broken: { source: "env:PROVENANT_WRAP_TEST_UNSET" } },
      tools: { echo: { binary: "/bin/echo" }, sh: { binary: "/bin/sh" }, sha256sum: { binary: "/usr/bin/sha256sum" } },
    });
  }, 180_000);
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const invoke = (name: string, args: string[], opts: { stdin?: Buffer; env?: Record<string, string>; onSpawn?: (pid: number, out: () => string) => void } = {}): Promise<Outcome> =>
    new Promise((resolve, reject) => {
      const child = spawn(join(dir, name), args, {
        cwd: "/",
        env: { PATH: "/usr/bin:/bin", PROVENANT_BROKER_SOCKET: h.daemon.socketPath, PROVENANT_BROKER_SECRET_FILE: h.daemon.secretFile, ...opts.env },
      });
      const out: Buffer[] = [];
      let err = "";
      child.stdout.on("data", (c: Buffer) => out.push(c));
      child.stderr.on("data", (c: Buffer) => (err += c.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err }));
      opts.onSpawn?.(child.pid as number, () => Buffer.concat(out).toString());
      child.stdin.end(opts.stdin ?? Buffer.alloc(0));
    });

  it("runs the tool it is named after, with its output and exit status", async () => {
    const r = await invoke("echo", ["hello", "<world>"]);
    expect(r).toEqual({ code: 0, stdout: Buffer.from("hello <world>\n"), stderr: "" });
    expect((await invoke("sh", ["-c", "echo err >&2; exit 3"])).code).toBe(3);
    const viaFirst = await invoke("provenant-wrap", ["echo", "via", "first", "arg"]);
    expect({ ...viaFirst, stdout: viaFirst.stdout.toString() }).toEqual({ code: 0, stdout: "via first arg\n", stderr: "" });
  });

  it("streams stdin in and large output out without losing a byte", async () => {
    const input = randomBytes(3 * 1024 * 1024);
    const r = await invoke("sha256sum", [], { stdin: input });
    expect(r.stdout.toString().split(" ")[0]).toBe(createHash("sha256").update(input).digest("hex"));
    const big = await invoke("sh", ["-c", "head -c 20000000 /dev/zero"]);
    expect(big.stdout.length).toBe(20_000_000);
  });

  it("forwards a signal it receives to the tool", async () => {
    let pid = 0;
    let read = (): string => "";
    const done = invoke("sh", ["-c", "trap 'echo got INT; exit 5' INT; echo ready; while :; do sleep 0.05; done"], {
      onSpawn: (p, out) => {
        pid = p;
        read = out;
      },
    });
    await vi.waitFor(() => expect(read()).toContain("ready"), { timeout: 25_000, interval: 20 });
    // A pid of 0 would signal this test's own process group (the test runner with it).
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGINT");
    const r = await done;
    expect(r.code).toBe(5);
    expect(r.stdout.toString()).toBe("ready\ngot INT\n");
  });

  it("is refused when started with NODE_OPTIONS or LD_PRELOAD, which could run other code inside it", async () => {
    const evil = join(dir, "evil.cjs");
    writeFileSync(evil, "");
    const hijacks: Record<string, string>[] = [{ NODE_OPTIONS: `--require ${evil}` }, { LD_PRELOAD: "/nonexistent/libx.so" }];
    for (const env of hijacks) {
      const r = await invoke("echo", ["x"], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("provenant-wrap: unauthorized caller");
    }
  });

  it("is the only accepted caller: a Node script with the same secret is refused", async () => {
    expect((await h.run({ tool: "echo", args: ["x"], cwd: "/" })).result).toEqual({ kind: "raw", text: '{"error":"unauthorized caller"}' });
  });

  it("refuses the fd-passing attack: connect, hand the socket to a child, exec the listed wrapper", async () => {
    writeAttackScripts(dir);
    const line = signedRequestLine(h.secret, { tool: "sh", args: ["-c", "echo pwned"], cwd: "/" });
    // A becomes the wrapper running a slow tool of its own, so its pid runs the listed executable
    // while C, holding A's first connection, sends the request.
    const reply = await runAttack({
      dir,
      socketPath: h.daemon.socketPath,
      runner: process.execPath,
      mode: "exec",
      line,
      execArgv: [wrap, "sh", "-c", "sleep 2"],
      env: { PROVENANT_BROKER_SOCKET: h.daemon.socketPath, PROVENANT_BROKER_SECRET_FILE: h.daemon.secretFile },
    });
    expect(printed(reply)).not.toContain("pwned");
    expect(reply.toString()).toMatch(/unauthorized caller/);
  });

  it("passes the admin check gate and reports each credential's status, showing at most its first and last two characters", async () => {
    const r = await invoke("provenant-wrap", ["--admin", "check"]);
    const report = JSON.parse(r.stdout.toString()) as { credentials: Record<string, unknown> };
    expect(report).toEqual({ credentials: { broken: { status: "failed" }, long: { status: "ok", preview: "ab.....yz" }, short: { status: "ok", preview: "....." } } });
    expect(Object.keys(report.credentials)).toEqual(["broken", "long", "short"]);
    expect(r.stdout.toString()).not.toContain("34567890");
    expect(h.logs.find((e) => e.event === "admin_check")?.fields).toMatchObject({ tool: "admin:check", credentials: 3, failed: 1, caller_exe: wrap });
    expect(h.logs.find((e) => e.event === "credential_check_failed")?.fields).toMatchObject({ credential: "broken" });
    expect(JSON.stringify(h.logs)).not.toContain("ab34567890yz");
  });

  it("refuses the admin check where no caller allow-list is configured, even to the wrapper", async () => {
    const open = await startHarness({ credentials: { long: { source: "env:PROVENANT_WRAP_TEST_LONG" } }, tools: { echo: { binary: "/bin/echo" } } });
    try {
      const r = await invoke("provenant-wrap", ["--admin", "check"], { env: { PROVENANT_BROKER_SOCKET: open.daemon.socketPath, PROVENANT_BROKER_SECRET_FILE: open.daemon.secretFile } });
      // The wrapper prints the daemon's answer to an admin command as it comes.
      expect(r.code).not.toBe(0);
      expect(r.stdout.toString()).toBe('{"error":"unauthorized caller"}\n');
      expect(open.logs.find((e) => e.event === "admin_check_refused")?.fields).toMatchObject({ argv0: "provenant-wrap" });
    } finally {
      await open.close();
    }
  });
});
