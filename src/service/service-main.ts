#!/usr/bin/env node
import { connect, createServer, type Socket } from "node:net";
import { unlinkSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { peerCredentials } from "../broker/peer-credentials.js";
import { acquireWriterLock, LedgerLockedError } from "../ledger/writer-lock.js";
import { GuardService } from "./guard-service.js";
import { ensureServiceDir, LOCK_NAME, serviceDir, SOCKET_NAME, uid } from "./service-paths.js";
import { MAX_REQUEST_BYTES, parseServiceRequest, waitingLine } from "./service-protocol.js";

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
// One service per directory. Hooks that find no socket each start one; without the lock a second
// could remove the first's new socket and listen in its place, leaving the first alive, unreachable,
// and holding the ledgers of the projects it had opened: every call there would fail safe until it
// went idle.
let releaseLock: () => void;
try {
  releaseLock = acquireWriterLock(join(dir, LOCK_NAME));
} catch (error) {
  process.exit(error instanceof LedgerLockedError ? 0 : 1);
}
// A service of an older version (no lock) may still be listening.
if (await listening(socketPath)) {
  releaseLock();
  process.exit(0);
}
try {
  unlinkSync(socketPath);
} catch {
  // No stale socket to remove.
}

let idle: NodeJS.Timeout | undefined;
// Half-open: an older hook ends its side right after the request and still reads the answer.
const server = createServer({ allowHalfOpen: true }, (socket) => serve(socket));
const stop = (): void => {
  server.close();
  try {
    unlinkSync(socketPath);
  } catch {
    // Already gone.
  }
  service.close();
  releaseLock();
  process.exit(0);
};
/** Requests being answered: a hook waiting for the owner is not idleness. */
let active = 0;
const touch = (): void => {
  if (idle !== undefined) clearTimeout(idle);
  idle = setTimeout(() => (active > 0 ? touch() : stop()), idleMs);
};
server.on("error", (error: NodeJS.ErrnoException) => {
  releaseLock();
  // A service of an older version won the race for the socket: it serves this user.
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
  let started = false;
  // The hook closing its side (it gave up, or Claude Code ended it) ends any wait for the owner.
  const gone = new AbortController();
  const start = (): void => {
    if (started) return;
    started = true;
    const request = parseServiceRequest(Buffer.concat(chunks).toString("utf8").split("\n")[0] ?? "");
    if (request === null) {
      socket.destroy();
      return;
    }
    const onWaiting = (until: number): void => {
      if (!socket.destroyed && socket.writable) socket.write(waitingLine(until));
    };
    active++;
    void service.handle(request, { signal: gone.signal, onWaiting, peerPid: peer.pid }).then((answer) => {
      active--;
      if (!socket.destroyed && socket.writable) socket.end(`${JSON.stringify(answer)}\n`);
      else socket.destroy();
      touch();
    });
  };
  socket.on("data", (c: Buffer) => {
    size += c.length;
    if (size > MAX_REQUEST_BYTES) {
      socket.destroy();
      return;
    }
    chunks.push(c);
    // A request is one line: it is complete at its newline (a newer hook keeps its side open to hear a wait end).
    if (c.includes(0x0a)) start();
  });
  socket.on("end", () => {
    if (started) gone.abort();
    else start();
  });
  socket.on("close", () => gone.abort());
  socket.on("error", () => {
    gone.abort();
    socket.destroy();
  });
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
