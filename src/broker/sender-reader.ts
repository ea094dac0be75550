import type { Server, Socket } from "node:net";
import koffi from "koffi";
import { socketFd } from "./peer-credentials.js";

/**
 * Reads a client connection with recvmsg(2) and SO_PASSCRED, so every chunk comes with the
 * credentials (pid, uid, gid) of the process that wrote it: the kernel stamps each write with its
 * writer, and with SO_PASSCRED set it never joins the bytes of two different writers in one read.
 * SO_PEERCRED names only the process that connected; a socket handed to another process (inherited
 * or passed as SCM_RIGHTS) keeps that name while someone else writes on it, which is how the caller
 * allow-list used to be bypassed.
 *
 * Node reads sockets with read(2), which drops the credentials, so the net.Socket is left paused
 * (the server uses pauseOnConnect) and serves only for writing; this reader polls a duplicate of its
 * descriptor on Node's own event loop (koffi's libuv poll handle) and calls recvmsg itself. The
 * duplicate is closed only after its poll handle, so a descriptor number never changes meaning under
 * the reader.
 */
export interface Sender {
  readonly pid: number;
  readonly uid: number;
  readonly gid: number;
}

export interface SenderReaderHandlers {
  /** One read's bytes, valid only during the call, and who wrote them (undefined: not reported). */
  readonly data: (bytes: Buffer, sender: Sender | undefined) => void;
  /** The client shut down its side: no more bytes will come. */
  readonly end: () => void;
  readonly error: (errno: number) => void;
}

const SOL_SOCKET = 1;
const SO_PASSCRED = 16;
const SCM_RIGHTS = 1;
const SCM_CREDENTIALS = 2;
const F_DUPFD_CLOEXEC = 1030;
const MSG_DONTWAIT = 0x40;
const MSG_CMSG_CLOEXEC = 0x40000000;
const EINTR = 4;
const EAGAIN = 11;
const READ_BUFFER_BYTES = 64 * 1024;
// cmsghdr (16 bytes on LP64) + struct ucred (12), padded to 8; room for one SCM_RIGHTS header too, so a
// client that attaches descriptors gets them closed here rather than truncated unseen.
const CONTROL_BYTES = 128;
// Reads per readiness event before yielding to the event loop, so one busy client cannot starve others.
const READS_PER_EVENT = 16;

interface Libc {
  recvmsg(fd: number, msg: Buffer, flags: number): number;
  setsockopt(fd: number, level: number, name: number, value: Buffer, len: number): number;
  fcntl(fd: number, cmd: number, arg: number): number;
  close(fd: number): number;
}

let libc: Libc | undefined;

function bind(): Libc {
  if (libc === undefined) {
    const lib = koffi.load("libc.so.6");
    libc = {
      recvmsg: lib.func("long recvmsg(int fd, void *msg, int flags)") as Libc["recvmsg"],
      setsockopt: lib.func("int setsockopt(int fd, int level, int optname, const void *optval, uint32_t optlen)") as Libc["setsockopt"],
      fcntl: lib.func("int fcntl(int fd, int cmd, int arg)") as Libc["fcntl"],
      close: lib.func("int close(int fd)") as Libc["close"],
    };
  }
  return libc;
}

interface PollHandle {
  start(opts: { readable: boolean; disconnect: boolean }, callback: (status: number) => void): void;
  stop(): void;
  close(): void;
}
type PollFn = (fd: number, opts: { readable: boolean; disconnect: boolean }, callback: (status: number) => void) => PollHandle | null;

function setPassCred(fd: number): boolean {
  const one = Buffer.alloc(4);
  one.writeInt32LE(1);
  return bind().setsockopt(fd, SOL_SOCKET, SO_PASSCRED, one, 4) === 0;
}

/**
 * Sets SO_PASSCRED on the listening socket. The kernel stamps a write with its writer only when one
 * end has SO_PASSCRED at the time of the write, and a connection takes the listener's flags when it is
 * made: set on the listener, the bytes a client sends before the daemon has even accepted it carry
 * credentials too. (Setting it on the accepted socket alone left those bytes unstamped.)
 */
export function enableListenerCredentials(server: Server): void {
  const fd = (server as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== "number" || fd < 0 || !setPassCred(fd)) throw new Error("cannot set SO_PASSCRED on the listening socket");
}

export class SenderReader {
  private poll: PollHandle | undefined;
  private fd: number;
  private paused = false;
  private finished = false;
  private readonly data = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  private readonly control = Buffer.alloc(CONTROL_BYTES);
  private readonly iov = Buffer.alloc(16);
  private readonly msg = Buffer.alloc(56);

  private constructor(
    fd: number,
    private readonly handlers: SenderReaderHandlers,
  ) {
    this.fd = fd;
    // struct iovec { void *base; size_t len; } and struct msghdr on LP64 Linux (x86_64, aarch64).
    this.iov.writeBigUInt64LE(koffi.address(this.data), 0);
    this.iov.writeBigUInt64LE(BigInt(READ_BUFFER_BYTES), 8);
    this.msg.writeBigUInt64LE(koffi.address(this.iov), 16);
    this.msg.writeBigUInt64LE(1n, 24);
    this.msg.writeBigUInt64LE(koffi.address(this.control), 32);
  }

  /** Starts reading `socket` (which must never be resumed: its own reads would drop the credentials). */
  static open(socket: Socket, handlers: SenderReaderHandlers): SenderReader | undefined {
    const fd = socketFd(socket);
    if (fd === undefined) return undefined;
    const c = bind();
    const dup = c.fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup < 0) return undefined;
    if (!setPassCred(dup)) {
      c.close(dup);
      return undefined;
    }
    const reader = new SenderReader(dup, handlers);
    const poll = (koffi.node.poll as unknown as PollFn)(dup, { readable: true, disconnect: true }, (status) => reader.onReadable(status));
    if (poll === null) {
      c.close(dup);
      return undefined;
    }
    reader.poll = poll;
    return reader;
  }

  pause(): void {
    if (this.paused || this.finished) return;
    this.paused = true;
    this.poll?.stop();
  }

  resume(): void {
    if (!this.paused || this.finished) return;
    this.paused = false;
    this.poll?.start({ readable: true, disconnect: true }, (status) => this.onReadable(status));
  }

  /** Stops reading for good and releases the duplicate descriptor. */
  close(): void {
    if (this.fd < 0) return;
    this.finished = true;
    // Closing the poll handle takes the descriptor out of the event loop at once (uv_close on a poll
    // handle invalidates the fd synchronously); only then is the descriptor itself closed.
    this.poll?.close();
    this.poll = undefined;
    bind().close(this.fd);
    this.fd = -1;
  }

  private onReadable(status: number): void {
    if (this.finished || this.paused) return;
    if (status < 0) {
      this.fail(-status);
      return;
    }
    const c = bind();
    for (let i = 0; i < READS_PER_EVENT && !this.finished && !this.paused; i++) {
      this.msg.writeBigUInt64LE(BigInt(CONTROL_BYTES), 40);
      this.msg.writeInt32LE(0, 48);
      const n = c.recvmsg(this.fd, this.msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
      if (n < 0) {
        const errno = koffi.errno();
        if (errno === EINTR) continue;
        if (errno !== EAGAIN) this.fail(errno);
        return;
      }
      const sender = this.takeControl();
      if (n === 0) {
        this.finished = true;
        this.poll?.stop();
        this.handlers.end();
        return;
      }
      this.handlers.data(this.data.subarray(0, n), sender);
    }
  }

  /** The writer's credentials from the control messages; descriptors a client attached are closed. */
  private takeControl(): Sender | undefined {
    const length = Number(this.msg.readBigUInt64LE(40));
    let sender: Sender | undefined;
    let off = 0;
    while (off + 16 <= length) {
      const len = Number(this.control.readBigUInt64LE(off));
      if (len < 16 || off + len > length) break;
      const level = this.control.readInt32LE(off + 8);
      const type = this.control.readInt32LE(off + 12);
      if (level === SOL_SOCKET && type === SCM_CREDENTIALS && len >= 16 + 12) {
        sender = { pid: this.control.readInt32LE(off + 16), uid: this.control.readUInt32LE(off + 20), gid: this.control.readUInt32LE(off + 24) };
      } else if (level === SOL_SOCKET && type === SCM_RIGHTS) {
        for (let p = off + 16; p + 4 <= off + len; p += 4) bind().close(this.control.readInt32LE(p));
      }
      off += (len + 7) & ~7;
    }
    return sender;
  }

  private fail(errno: number): void {
    this.finished = true;
    this.poll?.stop();
    this.handlers.error(errno);
  }
}
