#!/usr/bin/env node
import { connect, createServer, type Socket } from "node:net";
import { unlinkSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { peerCredentials } from "../broker/peer-credentials.js";
import { GuardService } from "./guard-service.js";
import { ensureServiceDir, serviceDir, SOCKET_NAME, uid } from "./service-paths.js";
import { MAX_REQUEST_BYTES, parseServiceRequest } from "./service-protocol.js";

/**
 * The guard service: one per user, started by the first hook that finds none, gone after
 * `PROVENANT_SERVICE_IDLE_MS` (default 5 minutes) without a request. Only this user's processes
 * may connect (the directory's mode, and the peer's uid as the kernel reports it).
 */
const dir = serviceDir();
const socketPath = join(dir, SOCKET_NAME);
const idleMs = Number.parseInt(process.env["PROVENANT_SERVICE_IDLE_MS"] ?? "", 10) || 5 * 60_000;
const service = new GuardService();

ensureServiceDir(dir);
if (await listening(socketPath)) process.exit(0);
try {
  unlinkSync(socketPath);
} catch {
  // No stale socket to remove.
}

let idle: NodeJS.Timeout | undefined;
const server = createServer((socket) => serve(socket));
const stop = (): void => {
  server.close();
  try {
    unlinkSync(socketPath);
  } catch {
    // Already gone.
  }
  service.close();
  process.exit(0);
};
const touch = (): void => {
  if (idle !== undefined) clearTimeout(idle);
  idle = setTimeout(stop, idleMs);
};
server.on("error", (error: NodeJS.ErrnoException) => {
  // Another service won the race for the socket: it serves this user.
  process.exit(error.code === "EADDRINUSE" ? 0 : 1);
});
server.listen(socketPath, () => {
  chmodSync(socketPath, 0o600);
  touch();
});
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

function serve(socket: Socket): void {
  touch();
  const peer = peerCredentials(socket);
  if (peer === undefined || peer.uid !== uid()) {
    socket.destroy();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  socket.on("data", (c: Buffer) => {
    size += c.length;
    if (size > MAX_REQUEST_BYTES) socket.destroy();
    else chunks.push(c);
  });
  socket.on("end", () => {
    const request = parseServiceRequest(Buffer.concat(chunks).toString("utf8"));
    if (request === null) {
      socket.destroy();
      return;
    }
    socket.end(`${JSON.stringify(service.handle(request))}\n`);
    touch();
  });
  socket.on("error", () => socket.destroy());
}

function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.on("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.on("error", () => resolve(false));
  });
}
