import { spawn } from "node:child_process";
import { chmodSync, closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readdirSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { type Socket, createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import koffi from "koffi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedAdminLine, signedRequestLine } from "../../src/broker/broker-client.js";
import { socketFd } from "../../src/broker/peer-credentials.js";
import { type Sender, SenderReader, enableListenerCredentials } from "../../src/broker/sender-reader.js";
import { type AttackMode, printed, runAttack, writeAttackScripts } from "./fd-passing-attack.js";
import { type Harness, framesOf, startHarness } from "./harness.js";

/**
 * Who is asking. The allow-list used to be checked on the process that connected (SO_PEERCRED); a
 * process that connects and hands the socket on (to a child, or by becoming a listed binary through
 * exec) had its successor's requests attributed to it. Now every byte is attributed to the process
 * that wrote it (SCM_CREDENTIALS), and the checks run on that process.
 */
const SECRET_VALUE = "s3cret-credential-value-0042";

/** sendmsg(2) with an SCM_RIGHTS message carrying `fds`, as a hostile client would send it. */
function sendWithDescriptors(fd: number, data: Buffer, fds: readonly number[]): number {
  const lib = koffi.load("libc.so.6");
  const sendmsg = lib.func("long sendmsg(int fd, void *msg, int flags)") as (fd: number, msg: Buffer, flags: number) => number;
  const control = Buffer.alloc(16 + 8 * Math.ceil((4 * fds.length) / 8));
  control.writeBigUInt64LE(BigInt(16 + 4 * fds.length), 0);
  control.writeInt32LE(1, 8); // SOL_SOCKET
  control.writeInt32LE(1, 12); // SCM_RIGHTS
  fds.forEach((f, i) => control.writeInt32LE(f, 16 + 4 * i));
  const iov = Buffer.alloc(16);
  iov.writeBigUInt64LE(koffi.address(data), 0);
  iov.writeBigUInt64LE(BigInt(data.length), 8);
  const msg = Buffer.alloc(56);
  msg.writeBigUInt64LE(koffi.address(iov), 16);
  msg.writeBigUInt64LE(1n, 24);
  msg.writeBigUInt64LE(koffi.address(control), 32);
  msg.writeBigUInt64LE(BigInt(control.length), 40);
  return sendmsg(fd, msg, 0);
}

describe("caller identity per message (SO_PASSCRED / SCM_CREDENTIALS)", () => {
  let dir: string;
  let listedNode: string;
  let h: Harness;
  let sleepHarness: Harness;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "provenant-caller-"));
    writeAttackScripts(dir);
    // A listed binary that runs the attacker's script: a copy of node under the wrapper's name. The
    // config refuses node itself; a renamed copy stands for any listed program that code can steer.
    listedNode = join(dir, "provenant-wrap");
    copyFileSync(process.execPath, listedNode);
    chmodSync(listedNode, 0o755);
    process.env["PROVENANT_TEST_SECRET"] = SECRET_VALUE;
    const tools = {
      printenv: { binary: "/usr/bin/env", env: { TOKEN: "tok" } },
      cat: { binary: "/bin/cat", env: { TOKEN: "tok" } },
    };
    const credentials = { tok: { source: "env:PROVENANT_TEST_SECRET" } };
    h = await startHarness({ proxy: { allowed_callers: [listedNode] }, credentials, tools });
    sleepHarness = await startHarness({ proxy: { allowed_callers: ["/bin/sleep"] }, credentials, tools });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await sleepHarness?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const attack = (harness: Harness, runner: string, mode: AttackMode, line: string, execArgv: string[] = []): Promise<Buffer> =>
    runAttack({ dir, socketPath: harness.daemon.socketPath, runner, mode, line, execArgv });

  it("refuses a request written by a child the listed caller handed its socket to", async () => {
    const line = signedRequestLine(h.secret, { tool: "printenv", args: [], cwd: "/" });
    const reply = await attack(h, listedNode, "request", line);
    expect(printed(reply)).not.toContain(SECRET_VALUE);
    expect(framesOf(reply)).toEqual([{ type: "error", message: "unauthorized caller" }]);
    expect(h.logs.some((e) => e.event === "request_refused" && /caller executable .* not allowed/.test(String(e.fields["reason"])))).toBe(true);
  });

  it("refuses a request the listed caller began and a child it handed the socket to finished", async () => {
    // Read as one request, it would be the listed caller's, and the unlisted child would read the tool's output.
    const line = signedRequestLine(h.secret, { tool: "printenv", args: [], cwd: "/" });
    const reply = await attack(h, listedNode, "split", line);
    expect(printed(reply)).not.toContain(SECRET_VALUE);
    expect(reply.toString()).toBe('{"error":"unauthorized caller"}');
    expect(h.logs.some((e) => e.event === "foreign_writer" && e.fields["where"] === "request")).toBe(true);
    expect(h.logs.some((e) => e.event === "tool_started" && e.fields["tool"] === "printenv")).toBe(false);
  });

  it("answers the admin check (credential previews) only to the wrapper: another listed program is refused", async () => {
    // A listed program that is not the wrapper (a copy of node under another name) asks for the check itself.
    const helper = join(dir, "helper");
    copyFileSync(process.execPath, helper);
    chmodSync(helper, 0o755);
    const listed = await startHarness({ proxy: { allowed_callers: [helper] }, credentials: { tok: { source: "env:PROVENANT_TEST_SECRET" } }, tools: { printenv: { binary: "/usr/bin/env", env: { TOKEN: "tok" } } } });
    try {
      const script = `const s = require("net").createConnection(process.argv[1], () => s.end(process.argv[2])); const got = []; s.on("data", (c) => got.push(c)); s.on("close", () => process.stdout.write(Buffer.concat(got)));`;
      const child = spawn(helper, ["-e", script, listed.daemon.socketPath, signedAdminLine(listed.secret, "check")], { stdio: ["ignore", "pipe", "inherit"] });
      const out: Buffer[] = [];
      child.stdout.on("data", (c: Buffer) => out.push(c));
      await new Promise((resolve) => child.on("close", resolve));
      expect(Buffer.concat(out).toString()).toBe('{"error":"unauthorized caller"}');
      expect(listed.logs.find((e) => e.event === "admin_check_refused")?.fields).toMatchObject({ argv0: "helper" });
    } finally {
      await listed.close();
    }
  });

  it("reproduces the fd-passing attack (connect, hand the socket to a child, exec the listed binary) and refuses it", async () => {
    const sleep = realpathSync("/bin/sleep");
    const line = signedRequestLine(sleepHarness.secret, { tool: "printenv", args: [], cwd: "/" });
    const reply = await attack(sleepHarness, process.execPath, "exec", line, [sleep, "20"]);
    expect(printed(reply)).not.toContain(SECRET_VALUE);
    expect(reply.toString()).toMatch(/unauthorized caller/);
    expect(sleepHarness.logs.some((e) => e.event === "tool_started")).toBe(false);
  });

  it("drops the connection when a process other than the request's author writes on it (stdin injection)", async () => {
    const line = signedRequestLine(h.secret, { tool: "cat", args: [], cwd: "/" });
    const reply = await attack(h, listedNode, "stdin", line);
    expect(printed(reply)).not.toContain("INJECTED-BY-CHILD");
    expect(h.logs.some((e) => e.event === "foreign_writer" && e.fields["where"] === "message")).toBe(true);
  });

  it("attributes bytes a client writes before the daemon has accepted the connection", async () => {
    const plain = await startHarness({ proxy: { max_connections: 128 }, tools: { echo: { binary: "/bin/echo" } } });
    try {
      // Another process writes each request the moment it connects, usually before the daemon's
      // accept has run: those bytes must carry credentials too, or honest requests would be refused.
      const lines = Array.from({ length: 120 }, (_, i) => signedRequestLine(plain.secret, { tool: "echo", args: [`n${i}`], cwd: "/" }));
      const script = `
        const net = require("net");
        const lines = JSON.parse(require("fs").readFileSync(process.argv[3], "utf8"));
        let left = lines.length, ok = 0, written = 0;
        for (const line of lines) {
          const s = net.createConnection(process.argv[1]);
          s.write(line, () => { if (++written === lines.length) require("fs").writeFileSync(process.argv[2], ""); });
          const got = [];
          s.on("data", (c) => got.push(c));
          s.on("end", () => s.end());
          s.on("close", () => { if (Buffer.concat(got).includes('"type":"done"')) ok++; if (--left === 0) console.log(ok); });
        }`;
      const flag = join(plain.dir, "all-written");
      const input = join(plain.dir, "lines.json");
      writeFileSync(input, JSON.stringify(lines));
      const ok = new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ["-e", script, plain.daemon.socketPath, flag, input], { stdio: ["ignore", "pipe", "inherit"] });
        let out = "";
        child.stdout.on("data", (c: Buffer) => (out += c.toString()));
        child.on("error", reject);
        child.on("close", () => resolve(out.trim()));
      });
      // The daemon shares this thread: holding it until every request is written means none of the
      // 120 connections has been accepted when its bytes arrive.
      const until = Date.now() + 15_000;
      const nap = new Int32Array(new SharedArrayBuffer(4));
      while (!existsSync(flag) && Date.now() < until) Atomics.wait(nap, 0, 0, 10);
      expect(plain.logs.filter((e) => e.event === "request_refused" || e.event === "foreign_writer").map((e) => e.fields["reason"] ?? e.event)).toEqual([]);
      expect(await ok).toBe("120");
    } finally {
      await plain.close();
    }
  });

  it("stamps bytes written after accept but before the reader starts (SO_PASSCRED is set on the listener)", async () => {
    const path = join(dir, "unit.sock");
    const received: { bytes: string; sender: Sender | undefined }[] = [];
    let accepted: (socket: Socket) => void = () => undefined;
    const server = createServer({ pauseOnConnect: true }, (socket) => accepted(socket));
    await new Promise<void>((r) => server.listen(path, r));
    enableListenerCredentials(server);
    try {
      const serverSide = new Promise<Socket>((r) => (accepted = r));
      const client = createConnection(path);
      const socket = await serverSide;
      // The connection is accepted and nothing has set SO_PASSCRED on it: the client writes now.
      await new Promise<void>((r) => client.write("written-early", () => r()));
      await new Promise((r) => setTimeout(r, 20));
      const done = new Promise<void>((resolve) => {
        const reader = SenderReader.open(socket, {
          data: (bytes, sender) => received.push({ bytes: bytes.toString(), sender }),
          end: () => {
            reader?.close();
            resolve();
          },
          error: () => resolve(),
        });
      });
      client.end();
      await done;
      socket.destroy();
      expect(received).toEqual([{ bytes: "written-early", sender: { pid: process.pid, uid: process.getuid?.(), gid: process.getgid?.() } }]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("closes descriptors a client attaches to its request (SCM_RIGHTS) and serves the request as usual", async () => {
    const plain = await startHarness({ tools: { echo: { binary: "/bin/echo" } } });
    // Descriptors open on a file of this test's own: any left after the exchange leaked into the daemon.
    const marker = join(dir, "descriptor-marker");
    writeFileSync(marker, "");
    const markerFds = (): number =>
      readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === marker;
        } catch {
          return false;
        }
      }).length;
    try {
      const line = Buffer.from(signedRequestLine(plain.secret, { tool: "echo", args: ["with-fds"], cwd: "/" }));
      const reply = await new Promise<Buffer>((resolve, reject) => {
        const client = createConnection(plain.daemon.socketPath, () => {
          const extra = [openSync(marker, "r"), openSync(marker, "r")];
          const sent = sendWithDescriptors(socketFd(client) as number, line, extra);
          for (const fd of extra) closeSync(fd);
          if (sent !== line.length) reject(new Error(`sendmsg sent ${sent}`));
        });
        const got: Buffer[] = [];
        client.on("data", (c: Buffer) => got.push(c));
        client.on("end", () => client.end());
        client.on("close", () => resolve(Buffer.concat(got)));
        client.on("error", reject);
      });
      expect(printed(reply)).toBe("with-fds\n");
      await new Promise((r) => setTimeout(r, 100));
      expect(markerFds()).toBe(0);
    } finally {
      await plain.close();
    }
  });

  it("checks the connecting peer before reading anything: a refused peer is answered without sending a byte", async () => {
    const refused = await startHarness({ proxy: { allowed_uid: 4242, read_header_timeout: "20s" }, tools: { echo: { binary: "/bin/echo" } } });
    try {
      const reply = await new Promise<string>((resolve, reject) => {
        const s = createConnection(refused.daemon.socketPath);
        let got = "";
        s.on("data", (c: Buffer) => {
          got += c.toString();
          if (got.endsWith("}")) {
            s.destroy();
            resolve(got);
          }
        });
        s.on("error", reject);
      });
      expect(reply).toBe('{"error":"unauthorized caller"}');
      expect(refused.logs.find((e) => e.event === "peer_refused")?.fields["reason"]).toBe(`peer uid ${process.getuid?.()}`);
    } finally {
      await refused.close();
    }
  });
});
