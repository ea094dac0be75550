#!/usr/bin/env node
import { basename } from "node:path";
import { adminCall, signedRequestLine, startCall } from "./broker-client.js";
import { DEFAULT_SECRET_FILE, DEFAULT_SOCKET_PATH } from "./default-paths.js";
import { readSecretFile } from "./secret-file.js";
import type { ForwardedSignal } from "./wire.js";

/**
 * provenant-wrap: runs a tool through the broker. Invoked under a tool's name (a symlink `gh` to this
 * program), it runs that tool; invoked as provenant-wrap, the first argument names the tool.
 * PROVENANT_BROKER_SOCKET and PROVENANT_BROKER_SECRET_FILE override the default paths. The exit
 * status is the tool's; 124 after a timeout, 128+n when the tool died of signal n is unknowable over
 * the protocol (it reports -1), so that case exits 255; an error from the broker exits 1.
 * `provenant-wrap --admin list|check` sends an admin command and prints the daemon's JSON reply.
 */
const SELF_NAMES = new Set(["provenant-wrap", "wrap-main.js", "wrap-main.ts"]);
const STDIN_CHUNK = 64 * 1024;

function invocation(): { tool: string; args: string[] } | { admin: string } | undefined {
  // Under a single executable the invoked name is argv[1] too (argv[0] is the executable itself).
  const name = basename(process.argv[1] ?? "");
  const rest = process.argv.slice(2);
  if (!SELF_NAMES.has(name)) return { tool: name, args: rest };
  const tool = rest[0];
  if (tool === "--admin") return rest[1] === undefined ? undefined : { admin: rest[1] };
  return tool === undefined ? undefined : { tool, args: rest.slice(1) };
}

function main(): void {
  const inv = invocation();
  if (inv === undefined) {
    process.stderr.write("usage: provenant-wrap <tool> [args...]  (or invoke through a symlink named after the tool)\n");
    process.exit(2);
  }
  const socketPath = process.env["PROVENANT_BROKER_SOCKET"] || DEFAULT_SOCKET_PATH;
  let secret: Buffer;
  try {
    secret = readSecretFile(process.env["PROVENANT_BROKER_SECRET_FILE"] || DEFAULT_SECRET_FILE);
  } catch (error) {
    process.stderr.write(`provenant-wrap: ${(error as Error).message}\n`);
    process.exit(1);
  }
  if ("admin" in inv) {
    adminCall(socketPath, secret, inv.admin).then(
      (reply) => {
        process.stdout.write(`${reply}\n`);
        process.exit(reply.startsWith('{"error"') ? 1 : 0);
      },
      (error: unknown) => {
        process.stderr.write(`provenant-wrap: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
    return;
  }
  const call = startCall(socketPath, signedRequestLine(secret, { tool: inv.tool, args: inv.args, cwd: process.cwd() }), {
    onStdout: (chunk) => {
      if (!process.stdout.write(chunk)) {
        call.socket.pause();
        process.stdout.once("drain", () => call.socket.resume());
      }
    },
    onStderr: (chunk) => {
      if (!process.stderr.write(chunk)) {
        call.socket.pause();
        process.stderr.once("drain", () => call.socket.resume());
      }
    },
  });

  process.stdin.on("data", (data: Buffer) => {
    for (let off = 0; off < data.length; off += STDIN_CHUNK) {
      if (!call.sendStdin(data.subarray(off, off + STDIN_CHUNK))) {
        process.stdin.pause();
        call.socket.once("drain", () => process.stdin.resume());
      }
    }
  });
  process.stdin.on("end", () => call.endStdin());
  process.stdin.on("error", () => call.endStdin());
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const satisfies readonly ForwardedSignal[]) {
    process.on(sig, () => call.sendSignal(sig));
  }

  call.result.then(
    (result) => {
      let code: number;
      if (result.kind === "done") code = result.timeout ? 124 : result.exitCode < 0 ? 255 : result.exitCode;
      else {
        const message = result.kind === "error" ? result.message : (parseRawError(result.text) ?? "connection closed by the broker");
        process.stderr.write(`provenant-wrap: ${message}\n`);
        code = 1;
      }
      const exit = (): never => process.exit(code);
      // Let stdout and stderr flush before exiting.
      if (process.stdout.writableLength > 0) process.stdout.once("drain", exit);
      else exit();
    },
    (error: unknown) => {
      process.stderr.write(`provenant-wrap: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}

function parseRawError(text: string): string | undefined {
  try {
    const o = JSON.parse(text) as { error?: unknown };
    return typeof o.error === "string" ? o.error : undefined;
  } catch {
    return undefined;
  }
}

main();
