import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Socket, createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedRequestLine } from "../../src/broker/broker-client.js";
import { type Sender, SenderReader, enableListenerCredentials } from "../../src/broker/sender-reader.js";
import { type Harness, framesOf, startHarness } from "./harness.js";

/**
 * Who is asking. The allow-list used to be checked on the process that connected (SO_PEERCRED); a
 * process that connects and hands the socket on (to a child, or by becoming a listed binary through
 * exec) had its successor's requests attributed to it. Now every byte is attributed to the process
 * that wrote it (SCM_CREDENTIALS), and the checks run on that process.
 */
const SECRET_VALUE = "s3cret-credential-value-0042";

// The attacker's two processes, as plain scripts: A connects, C is handed the socket.
const ATTACKER_A = `
const net = require("net");
const { spawn } = require("child_process");
const [socketPath, mode, resultFile, execPath] = process.argv.slice(2);
const s = net.createConnection(socketPath, () => {
  // In "stdin" mode A is the honest caller: it sends its own request, then the socket reaches C.
  if (mode === "stdin") s.write(process.env.REQUEST_LINE);
  s.pause();
  const child = spawn(process.env.PLAIN_NODE, [process.env.ATTACKER_C, mode, String(process.pid), resultFile, execPath || ""], { stdio: ["ignore", "inherit", "inherit", s] });
  if (mode === "exec") {
    // Become the listed binary: the connection's SO_PEERCRED pid now runs it.
    const koffi = require(process.env.KOFFI_PATH);
    const execv = koffi.load("libc.so.6").func("int execv(const char *path, const char **argv)");
    execv(execPath, [execPath, "20", null]);
  }
  child.on("exit", () => process.exit(0));
});
`;
const ATTACKER_C = `
const net = require("net");
const fs = require("fs");
const [mode, parentPid, resultFile, waitExe] = process.argv.slice(2);
const s = new net.Socket({ fd: 3, readable: true, writable: true });
const got = [];
let dumped = false;
const dump = () => { if (!dumped) fs.writeFileSync(resultFile, Buffer.concat(got)); dumped = true; process.exit(0); };
if (mode === "stdin") {
  const data = Buffer.from("INJECTED-BY-CHILD\\n").toString("base64");
  s.on("data", (c) => got.push(c));
  s.on("end", dump);
  s.on("close", dump);
  setTimeout(dump, 5000);
  s.write('{"type":"stdin","data":"' + data + '"}\\n{"type":"stdin","eof":true}\\n');
} else {
  const exeIs = () => { try { return fs.readlinkSync("/proc/" + parentPid + "/exe") === waitExe; } catch { return false; } };
  const go = () => {
    if (waitExe && !exeIs()) return setTimeout(go, 10);
    s.on("data", (c) => got.push(c));
    s.on("close", dump);
    s.write(process.env.REQUEST_LINE);
  };
  go();
}
`;

/** Everything the tool printed, decoded from the reply's output frames (raw replies have none). */
const printed = (reply: Buffer): string =>
  reply[0] === 0x7b
    ? ""
    : (framesOf(reply) as { type: string; data?: string }[])
        .filter((f) => f.type === "stdout" || f.type === "stderr")
        .map((f) => Buffer.from(f.data ?? "", "base64").toString())
        .join("");

const waitForFile = async (path: string, ms = 20_000): Promise<Buffer> => {
  const end = Date.now() + ms;
  while (!existsSync(path)) {
    if (Date.now() > end) throw new Error(`no result in ${path}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 50));
  return readFileSync(path);
};

describe("caller identity per message (SO_PASSCRED / SCM_CREDENTIALS)", () => {
  let dir: string;
  let listedNode: string;
  let h: Harness;
  let sleepHarness: Harness;
  const koffiPath = createRequire(import.meta.url).resolve("koffi");
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "provenant-caller-"));
    writeFileSync(join(dir, "a.cjs"), ATTACKER_A);
    writeFileSync(join(dir, "c.cjs"), ATTACKER_C);
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

  const attack = (harness: Harness, runner: string, mode: "request" | "stdin" | "exec", line: string, execPath = ""): Promise<Buffer> => {
    const result = join(dir, `result-${mode}-${Date.now()}`);
    const a = spawn(runner, [join(dir, "a.cjs"), harness.daemon.socketPath, mode, result, execPath], {
      stdio: "ignore",
      env: { PATH: "/usr/bin:/bin", REQUEST_LINE: line, PLAIN_NODE: process.execPath, ATTACKER_C: join(dir, "c.cjs"), KOFFI_PATH: koffiPath },
    });
    a.unref();
    return waitForFile(result);
  };

  it("refuses a request written by a child the listed caller handed its socket to", async () => {
    const line = signedRequestLine(h.secret, { tool: "printenv", args: [], cwd: "/" });
    const reply = await attack(h, listedNode, "request", line);
    expect(printed(reply)).not.toContain(SECRET_VALUE);
    expect(framesOf(reply)).toEqual([{ type: "error", message: "unauthorized caller" }]);
    expect(h.logs.some((e) => e.event === "request_refused" && /caller executable .* not allowed/.test(String(e.fields["reason"])))).toBe(true);
  });

  it("reproduces the fd-passing attack (connect, hand the socket to a child, exec the listed binary) and refuses it", async () => {
    const sleep = realpathSync("/bin/sleep");
    const line = signedRequestLine(sleepHarness.secret, { tool: "printenv", args: [], cwd: "/" });
    const reply = await attack(sleepHarness, process.execPath, "exec", line, sleep);
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
