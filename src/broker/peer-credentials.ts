import type { Socket } from "node:net";
import koffi from "koffi";

/**
 * The connecting process's pid, uid and gid as the kernel recorded them when it connected
 * (SO_PEERCRED). Node has no API for it, so we call getsockopt(2) through koffi on the socket's file
 * descriptor. Nothing here is read from /proc: a pid taken from there could be guessed or reused.
 */
export interface PeerCredentials {
  readonly pid: number;
  readonly uid: number;
  readonly gid: number;
}

const SOL_SOCKET = 1;
const SO_PEERCRED = 17;
const UCRED_SIZE = 12;

interface Getsockopt {
  (fd: number, level: number, name: number, out: Buffer, len: number[]): number;
}

let getsockopt: Getsockopt | undefined;

function bind(): Getsockopt {
  if (getsockopt === undefined) {
    const libc = koffi.load("libc.so.6");
    getsockopt = libc.func("int getsockopt(int fd, int level, int optname, _Out_ uint8_t *optval, _Inout_ uint32_t *optlen)") as Getsockopt;
  }
  return getsockopt;
}

/** The descriptor under a connected Unix socket; libuv keeps it on the handle as `fd`. */
export function socketFd(socket: Socket): number | undefined {
  const handle = (socket as unknown as { _handle?: { fd?: unknown } })._handle;
  const fd = handle?.fd;
  return typeof fd === "number" && fd >= 0 ? fd : undefined;
}

export function peerCredentials(socket: Socket): PeerCredentials | undefined {
  const fd = socketFd(socket);
  if (fd === undefined) return undefined;
  const out = Buffer.alloc(UCRED_SIZE);
  const len = [UCRED_SIZE];
  if (bind()(fd, SOL_SOCKET, SO_PEERCRED, out, len) !== 0 || len[0] !== UCRED_SIZE) return undefined;
  return { pid: out.readInt32LE(0), uid: out.readUInt32LE(4), gid: out.readUInt32LE(8) };
}
