import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { framesOf } from "./harness.js";

/**
 * The fd-passing attack on the caller allow-list, as real processes. A connects to the daemon and
 * hands the socket to a child C (as its fd 3). In "request" mode C writes a request on it; in "exec"
 * mode A then execs a listed binary (so the connection's SO_PEERCRED pid runs it) and C writes only
 * once A's executable has changed; in "stdin" mode A sends its own request and C injects stdin; in
 * "split" mode A writes the first half of the request and C the rest. C writes whatever comes back
 * to a result file.
 */
export type AttackMode = "request" | "stdin" | "exec" | "split";

// The attacker's two processes, as plain scripts: A connects, C is handed the socket.
const ATTACKER_A = `
const net = require("net");
const { spawn } = require("child_process");
const [socketPath, mode, resultFile, execPath] = process.argv.slice(2);
const s = net.createConnection(socketPath, () => {
  // In "stdin" mode A is the honest caller: it sends its own request, then the socket reaches C.
  if (mode === "stdin") s.write(process.env.REQUEST_LINE);
  if (mode === "split") s.write(process.env.REQUEST_LINE.slice(0, process.env.REQUEST_LINE.length >> 1));
  s.pause();
  const child = spawn(process.env.PLAIN_NODE, [process.env.ATTACKER_C, mode, String(process.pid), resultFile, execPath || ""], { stdio: ["ignore", "inherit", "inherit", s] });
  if (mode === "exec") {
    // Become the listed binary: the connection's SO_PEERCRED pid now runs it.
    const koffi = require(process.env.KOFFI_PATH);
    const execv = koffi.load("libc.so.6").func("int execv(const char *path, const char **argv)");
    const argv = JSON.parse(process.env.EXEC_ARGV);
    execv(argv[0], [...argv, null]);
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
    const line = process.env.REQUEST_LINE;
    s.write(mode === "split" ? line.slice(line.length >> 1) : line);
  };
  go();
}
`;

/** Everything the tool printed, decoded from the reply's output frames (raw replies have none). */
export const printed = (reply: Buffer): string =>
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

export function writeAttackScripts(dir: string): void {
  writeFileSync(join(dir, "a.cjs"), ATTACKER_A);
  writeFileSync(join(dir, "c.cjs"), ATTACKER_C);
}

export interface Attack {
  readonly dir: string;
  readonly socketPath: string;
  /** The executable that runs A (a listed binary, or plain node). */
  readonly runner: string;
  readonly mode: AttackMode;
  /** The signed request line A or C sends. */
  readonly line: string;
  /** exec mode: what A execs, argv[0] first; C waits until A's executable is argv[0]. */
  readonly execArgv?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

export function runAttack(a: Attack): Promise<Buffer> {
  const result = join(a.dir, `result-${a.mode}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const execArgv = a.execArgv ?? [];
  const child = spawn(a.runner, [join(a.dir, "a.cjs"), a.socketPath, a.mode, result, execArgv[0] ?? ""], {
    stdio: "ignore",
    env: {
      PATH: "/usr/bin:/bin",
      REQUEST_LINE: a.line,
      PLAIN_NODE: process.execPath,
      ATTACKER_C: join(a.dir, "c.cjs"),
      KOFFI_PATH: createRequire(import.meta.url).resolve("koffi"),
      EXEC_ARGV: JSON.stringify(execArgv),
      ...a.env,
    },
  });
  child.unref();
  return waitForFile(result);
}
