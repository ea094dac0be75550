import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedRequestLine, startCall } from "../../src/broker/broker-client.js";
import { DENIED_ENV_NAMES } from "../../src/broker/child-env.js";
import { type Harness, framesOf, rawExchange, startHarness } from "./harness.js";

// A zombie (state Z) has finished: only its parent's wait is missing.
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};
const until = async (cond: () => boolean, ms = 20_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("broker tool runs", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(
      {
        proxy: { write_timeout: "1s", max_output_size: "1MB", timeout: "20s" },
        credentials: { token: { source: "env:PROVENANT_TEST_TOKEN" } },
        tools: {
          env: { binary: "/usr/bin/env", env: { GH_TOKEN: "token" }, forced_env: { SAFE_MODE: "on" } },
          sh: { binary: "/bin/sh" },
          slow: { binary: "/bin/sh", timeout: "1s" },
        },
      },
      { killGraceMs: 1000 },
    );
  });
  afterAll(async () => h.close());

  it("builds the child environment: base, credential, forced env, and only harmless request names", async () => {
    process.env["PROVENANT_TEST_TOKEN"] = "tok-123";
    const requested: Record<string, string> = { HARMLESS: "yes", SAFE_MODE: "off", GH_TOKEN: "mine", PATH: "/evil", HOME: "/evil" };
    for (const name of DENIED_ENV_NAMES) requested[name] = "injected";
    for (const name of ["LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "BASH_FUNC_ls%%", "GIT_CONFIG_KEY_0", "GIT_TRACE2_EVENT", "1BAD", "A=B"]) requested[name] = "injected";
    const r = await h.run({ tool: "env", args: [], cwd: "/", env: requested });
    expect(r.result).toMatchObject({ kind: "done", exitCode: 0 });
    const env = new Map(r.stdout.toString().trim().split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)] as const));
    expect(env.get("HARMLESS")).toBe("yes");
    expect(env.get("SAFE_MODE")).toBe("on");
    expect(env.get("GH_TOKEN")).toBe("tok-123");
    expect(env.get("PATH")).not.toBe("/evil");
    expect(env.get("HOME")).not.toBe("/evil");
    for (const [k, v] of env) expect(`${k}=${v}`).not.toContain("injected");
    const dropped = h.logs.find((e) => e.event === "request_env_dropped");
    expect(String(dropped?.fields["names"])).toContain("NODE_OPTIONS");
    expect(JSON.stringify(h.logs)).not.toContain("tok-123");
  });

  it("streams output while the tool is still running (no spooling until exit)", async () => {
    const out: Buffer[] = [];
    let got = 0;
    const call = startCall(h.daemon.socketPath, signedRequestLine(h.secret, { tool: "sh", args: ["-c", "head -c 900000 /dev/zero; cat >/dev/null; echo end"], cwd: "/" }), {
      onStdout: (c) => {
        out.push(c);
        got += c.length;
      },
    });
    await until(() => got >= 900_000);
    call.endStdin();
    expect(await call.result).toMatchObject({ kind: "done", exitCode: 0 });
    expect(Buffer.concat(out).length).toBe(900_004);
  });

  it("streams stdin, and a newline arriving in its own read does not end stdin", async () => {
    const req = signedRequestLine(h.secret, { tool: "sh", args: ["-c", "cat"], cwd: "/" });
    const m1 = `{"type":"stdin","data":"${Buffer.from("first ").toString("base64")}"}`;
    const m2 = `{"type":"stdin","data":"${Buffer.from("second").toString("base64")}"}\n{"type":"stdin","eof":true}\n`;
    const reply = await rawExchange(h.daemon.socketPath, [req, m1, "\n", m2], { gapMs: 30 });
    const frames = framesOf(reply) as { type: string; data?: string }[];
    const text = frames.filter((f) => f.type === "stdout").map((f) => Buffer.from(f.data as string, "base64").toString()).join("");
    expect(text).toBe("first second");
    expect(frames.at(-1)).toEqual({ type: "done" });

    const big = randomBytes(5 * 1024 * 1024);
    const r = await h.run({ tool: "sh", args: ["-c", "sha256sum"], cwd: "/" }, big);
    expect(r.stdout.toString().split(" ")[0]).toBe(createHash("sha256").update(big).digest("hex"));
  });

  it("ends stdin at a client message over max_stdin_message_size, whether or not it came with the request", async () => {
    const req = (): string => signedRequestLine(h.secret, { tool: "sh", args: ["-c", "wc -c"], cwd: "/" });
    const small = `{"type":"stdin","data":"${Buffer.from("abc").toString("base64")}"}\n`;
    const huge = `{"type":"stdin","data":"${Buffer.alloc(1024 * 1024).toString("base64")}"}\n`;
    for (const pieces of [[req() + small + huge + small], [req(), small, huge, small]]) {
      const reply = await rawExchange(h.daemon.socketPath, pieces, { gapMs: 20, end: false });
      const frames = framesOf(reply) as { type: string; data?: string }[];
      expect(frames.filter((f) => f.type === "stdout").map((f) => Buffer.from(f.data as string, "base64").toString().trim())).toEqual(["3"]);
      expect(frames.at(-1)).toEqual({ type: "done" });
    }
  });

  it("kills the whole process group on timeout, grandchildren included", async () => {
    const pidFile = join(h.dir, "grandchild.pid");
    const r = await h.run({ tool: "slow", args: ["-c", `sleep 300 & echo $! > ${pidFile}; sh -c 'trap "" TERM; sleep 300' & wait`], cwd: "/" });
    expect(r.result).toEqual({ kind: "done", exitCode: -1, timeout: true });
    const pid = Number(readFileSync(pidFile, "utf8"));
    await until(() => !alive(pid));
  });

  it("forwards SIGINT, SIGTERM and SIGHUP to the tool", async () => {
    for (const [sig, code] of [["SIGINT", 7], ["SIGTERM", 8], ["SIGHUP", 9]] as const) {
      let out = "";
      const script = `trap 'echo got ${sig}; exit ${code}' ${sig.slice(3)}; echo ready; while :; do sleep 0.05; done`;
      const call = startCall(h.daemon.socketPath, signedRequestLine(h.secret, { tool: "sh", args: ["-c", script], cwd: "/" }), { onStdout: (c) => (out += c.toString()) });
      await until(() => out.includes("ready"));
      call.sendSignal(sig);
      expect(await call.result).toEqual({ kind: "done", exitCode: code, timeout: false });
      expect(out).toBe(`ready\ngot ${sig}\n`);
    }
  });

  it("reports a tool killed by a signal as exit code -1", async () => {
    const r = await h.run({ tool: "sh", args: ["-c", "kill -9 $$"], cwd: "/" });
    expect(r.result).toEqual({ kind: "done", exitCode: -1, timeout: false });
  });

  it("stops a tool at max_output_size and says so", async () => {
    const r = await h.run({ tool: "sh", args: ["-c", "head -c 5000000 /dev/zero; sleep 5"], cwd: "/" });
    expect(r.result).toEqual({ kind: "error", message: "process error" });
    expect(r.stdout.length).toBe(1024 * 1024);
  });

  it("drops a client that stops reading (write deadline) and kills its tool", async () => {
    const pidFile = join(h.dir, "slowclient.pid");
    const socket = createConnection(h.daemon.socketPath);
    socket.write(signedRequestLine(h.secret, { tool: "sh", args: ["-c", `echo $$ > ${pidFile}; exec cat /dev/zero`], cwd: "/" }));
    socket.pause();
    await until(() => existsSync(pidFile));
    const pid = Number(readFileSync(pidFile, "utf8"));
    await until(() => h.logs.some((e) => e.event === "client_write_timeout"));
    await until(() => !alive(pid));
    socket.destroy();
  });

  it("kills the tool when the client disappears mid-run (noticed at the next write)", async () => {
    const pidFile = join(h.dir, "gone.pid");
    const socket = createConnection(h.daemon.socketPath);
    socket.write(signedRequestLine(h.secret, { tool: "sh", args: ["-c", `echo $$ > ${pidFile}; while :; do echo tick; sleep 0.1; done`], cwd: "/" }));
    await until(() => existsSync(pidFile));
    const pid = Number(readFileSync(pidFile, "utf8"));
    socket.destroy();
    await until(() => !alive(pid));
  });
});

describe("broker output integrity under load", () => {
  let h: Harness;
  let bigFile: string;
  let bigDigest: string;
  const SIZE = 100 * 1024 * 1024;
  beforeAll(async () => {
    h = await startHarness({ tools: { echo: { binary: "/bin/echo" }, cat: { binary: "/bin/cat" } } });
    bigFile = join(h.dir, "big.bin");
    const data = randomBytes(SIZE);
    writeFileSync(bigFile, data);
    bigDigest = createHash("sha256").update(data).digest("hex");
  });
  afterAll(async () => h.close());

  it("1,000 runs of echo lose no output", async () => {
    let next = 0;
    const failures: string[] = [];
    const worker = async (): Promise<void> => {
      while (next < 1000) {
        const i = next++;
        const r = await h.run({ tool: "echo", args: [`line-${i}`], cwd: "/" });
        if (r.stdout.toString() !== `line-${i}\n` || r.result.kind !== "done") failures.push(`${i}: ${JSON.stringify(r.stdout.toString())}`);
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    expect(failures).toEqual([]);
  }, 120_000);

  it("20 runs of 100 MB account for every byte, in frames within the 16 MiB limit", async () => {
    for (let i = 0; i < 20; i++) {
      const hash = createHash("sha256");
      let bytes = 0;
      const call = startCall(h.daemon.socketPath, signedRequestLine(h.secret, { tool: "cat", args: [bigFile], cwd: "/" }), {
        onStdout: (data) => {
          hash.update(data);
          bytes += data.length;
        },
      });
      call.endStdin();
      // The client's decoder throws on any frame over 16 MiB or of length zero, failing the call.
      const result = await call.result;
      expect(result).toEqual({ kind: "done", exitCode: 0, timeout: false });
      expect(bytes).toBe(SIZE);
      expect(hash.digest("hex")).toBe(bigDigest);
    }
  }, 300_000);

  it("removes nothing it should not and leaves no config dirs behind", () => {
    expect(readdirSync(join(h.dir, "tmp"))).toEqual([]);
  });
});
