import { closeSync } from "node:fs";
import { type OnReadOpts, Socket, type SocketConstructorOpts } from "node:net";
import koffi from "koffi";

/**
 * Starts a tool in a new session (so in its own process group) with posix_spawn(3), called through
 * koffi. Node's own spawn forks the whole daemon, and fork's cost grows with the parent's memory (on
 * this class of machine 5 ms at 55 MB of RSS, 23 ms at 160 MB); glibc's posix_spawn uses
 * clone(CLONE_VM|CLONE_VFORK) and costs the same whatever the daemon's size. The child gets default
 * dispositions for every signal and an empty signal mask (Node ignores SIGPIPE, and an ignored
 * disposition would otherwise survive exec), its three pipes as fds 0-2, and nothing else: every
 * other descriptor here is close-on-exec.
 *
 * The child is not one of libuv's, so nobody else reaps it: `waitExit` polls waitpid(2) without
 * blocking, which costs nothing while the pipes are open because it only starts once they close.
 */
export interface SpawnedSession {
  readonly pid: number;
  readonly stdin: Socket;
  readonly stdout: Socket;
  readonly stderr: Socket;
}

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: number | null;
}

export class SpawnError extends Error {
  constructor(readonly errno: number) {
    super(`posix_spawn failed (errno ${errno})`);
  }
}

const O_CLOEXEC = 0o2000000;
const POSIX_SPAWN_SETSIGDEF = 0x04;
const POSIX_SPAWN_SETSIGMASK = 0x08;
const POSIX_SPAWN_SETSID = 0x80;
const WNOHANG = 1;
const F_SETPIPE_SZ = 1031;
const OUTPUT_PIPE_BYTES = 1024 * 1024;
// Opaque glibc structures, allocated generously (x86_64 and aarch64 sizes are 80, 336 and 128 bytes).
const FILE_ACTIONS_BYTES = 256;
const SPAWNATTR_BYTES = 1024;
const SIGSET_BYTES = 256;

interface Libc {
  pipe2(fds: Int32Array, flags: number): number;
  posix_spawn_file_actions_init(fa: Buffer): number;
  posix_spawn_file_actions_destroy(fa: Buffer): number;
  posix_spawn_file_actions_adddup2(fa: Buffer, fd: number, newfd: number): number;
  posix_spawn_file_actions_addchdir_np(fa: Buffer, path: string): number;
  posix_spawnattr_init(attr: Buffer): number;
  posix_spawnattr_destroy(attr: Buffer): number;
  posix_spawnattr_setflags(attr: Buffer, flags: number): number;
  posix_spawnattr_setsigdefault(attr: Buffer, set: Buffer): number;
  posix_spawnattr_setsigmask(attr: Buffer, set: Buffer): number;
  sigfillset(set: Buffer): number;
  sigemptyset(set: Buffer): number;
  posix_spawn: KoffiAsync<[pid: Int32Array, path: string, fa: Buffer, attr: Buffer, argv: (string | null)[], envp: (string | null)[]]>;
  waitpid(pid: number, status: Int32Array, options: number): number;
  pidfd_open(pid: number, flags: number): number;
  fcntl(fd: number, cmd: number, arg: number): number;
  close(fd: number): number;
  poll: KoffiAsync<[fds: Buffer, nfds: number, timeout: number]>;
}

type KoffiAsync<A extends unknown[]> = { async: (...args: [...A, (error: unknown, result: number) => void]) => void };

let libc: Libc | undefined;

function bind(): Libc {
  if (libc !== undefined) return libc;
  const lib = koffi.load("libc.so.6");
  const f = <T>(decl: string): T => lib.func(decl) as T;
  libc = {
    pipe2: f("int pipe2(_Out_ int32_t *fds, int flags)"),
    posix_spawn_file_actions_init: f("int posix_spawn_file_actions_init(void *fa)"),
    posix_spawn_file_actions_destroy: f("int posix_spawn_file_actions_destroy(void *fa)"),
    posix_spawn_file_actions_adddup2: f("int posix_spawn_file_actions_adddup2(void *fa, int fd, int newfd)"),
    posix_spawn_file_actions_addchdir_np: f("int posix_spawn_file_actions_addchdir_np(void *fa, const char *path)"),
    posix_spawnattr_init: f("int posix_spawnattr_init(void *attr)"),
    posix_spawnattr_destroy: f("int posix_spawnattr_destroy(void *attr)"),
    posix_spawnattr_setflags: f("int posix_spawnattr_setflags(void *attr, short flags)"),
    posix_spawnattr_setsigdefault: f("int posix_spawnattr_setsigdefault(void *attr, const void *set)"),
    posix_spawnattr_setsigmask: f("int posix_spawnattr_setsigmask(void *attr, const void *set)"),
    sigfillset: f("int sigfillset(void *set)"),
    sigemptyset: f("int sigemptyset(void *set)"),
    posix_spawn: f("int posix_spawn(_Out_ int32_t *pid, const char *path, const void *fa, const void *attr, const char **argv, const char **envp)"),
    waitpid: f("int waitpid(int pid, _Out_ int32_t *status, int options)"),
    pidfd_open: f("int pidfd_open(int pid, unsigned int flags)"),
    fcntl: f("int fcntl(int fd, int cmd, int arg)"),
    close: f("int close(int fd)"),
    poll: f("int poll(void *fds, unsigned long nfds, int timeout)"),
  };
  return libc;
}

function makePipe(c: Libc, capacity = 0): [number, number] {
  const fds = new Int32Array(2);
  if (c.pipe2(fds, O_CLOEXEC) !== 0) throw new SpawnError(koffi.errno());
  // A larger pipe lets a fast tool run ahead of the event loop instead of waking it every 64 KiB.
  // Best effort: the kernel caps it at fs.pipe-max-size.
  if (capacity > 0) c.fcntl(fds[1] as number, F_SETPIPE_SZ, capacity);
  return [fds[0] as number, fds[1] as number];
}

/**
 * posix_spawn runs on libuv's thread pool: with CLONE_VFORK the calling thread waits until the child
 * has exec'd (about a millisecond here), and that thread should not be the event loop's.
 */
/** Receives each read of a tool's output pipe; the bytes are only valid during the call. */
export type PipeReader = (bytes: Buffer) => void;

// Reads land in one reused buffer per pipe (net.Socket's `onread`), so reading allocates nothing.
const READ_BUFFER_BYTES = 64 * 1024;

function readerSocket(fd: number, reader: PipeReader): Socket {
  // @types/node declares `onread` only for connect(); Node's Socket constructor takes it too.
  const options: SocketConstructorOpts & { onread: OnReadOpts } = {
    fd,
    readable: true,
    writable: false,
    onread: {
      buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
      callback: (length: number, buffer: Uint8Array): boolean => {
        reader(Buffer.from(buffer.buffer, buffer.byteOffset, length));
        return true;
      },
    },
  };
  return new Socket(options);
}

export async function spawnSession(
  binary: string,
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
  readers: { readonly stdout: PipeReader; readonly stderr: PipeReader },
): Promise<SpawnedSession> {
  const c = bind();
  const opened: number[] = [];
  const fa = Buffer.alloc(FILE_ACTIONS_BYTES);
  const attr = Buffer.alloc(SPAWNATTR_BYTES);
  let faReady = false;
  let attrReady = false;
  try {
    const [inR, inW] = makePipe(c);
    opened.push(inR, inW);
    const [outR, outW] = makePipe(c, OUTPUT_PIPE_BYTES);
    opened.push(outR, outW);
    const [errR, errW] = makePipe(c, OUTPUT_PIPE_BYTES);
    opened.push(errR, errW);

    check(c.posix_spawn_file_actions_init(fa));
    faReady = true;
    check(c.posix_spawn_file_actions_adddup2(fa, inR, 0));
    check(c.posix_spawn_file_actions_adddup2(fa, outW, 1));
    check(c.posix_spawn_file_actions_adddup2(fa, errW, 2));
    check(c.posix_spawn_file_actions_addchdir_np(fa, cwd));

    check(c.posix_spawnattr_init(attr));
    attrReady = true;
    const all = Buffer.alloc(SIGSET_BYTES);
    const none = Buffer.alloc(SIGSET_BYTES);
    c.sigfillset(all);
    c.sigemptyset(none);
    check(c.posix_spawnattr_setsigdefault(attr, all));
    check(c.posix_spawnattr_setsigmask(attr, none));
    check(c.posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK));

    const envp: (string | null)[] = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    envp.push(null);
    const argv: (string | null)[] = [binary, ...args, null];
    const pid = new Int32Array(1);
    check(await new Promise<number>((resolve, reject) => c.posix_spawn.async(pid, binary, fa, attr, argv, envp, (error, rc) => (error ? reject(error as Error) : resolve(rc)))));

    for (const fd of [inR, outW, errW]) closeSync(fd);
    opened.length = 0;
    return {
      pid: pid[0] as number,
      stdin: new Socket({ fd: inW, readable: false, writable: true }),
      stdout: readerSocket(outR, readers.stdout),
      stderr: readerSocket(errR, readers.stderr),
    };
  } finally {
    if (faReady) c.posix_spawn_file_actions_destroy(fa);
    if (attrReady) c.posix_spawnattr_destroy(attr);
    for (const fd of opened) closeSync(fd);
  }
}

function check(rc: number): void {
  if (rc !== 0) throw new SpawnError(rc);
}

/** Non-blocking reap: the exit status once the child has exited, undefined while it runs. */
export function tryReap(pid: number): ExitStatus | undefined {
  const status = new Int32Array(1);
  const rc = bind().waitpid(pid, status, WNOHANG);
  if (rc === 0) return undefined;
  if (rc !== pid) return { code: null, signal: null };
  const s = status[0] as number;
  const termsig = s & 0x7f;
  return termsig === 0 ? { code: (s >> 8) & 0xff, signal: null } : { code: null, signal: termsig };
}

const POLLIN = 1;
// Upper bound on how long one wait occupies a libuv pool thread, so a tool that closes its pipes
// but keeps running never pins a thread.
const POLL_SLICE_MS = 100;

/**
 * Waits for the child to exit and reaps it. The wait is poll(2) on a pidfd, run on libuv's thread
 * pool through koffi's async calls, one bounded slice at a time: the event loop never blocks, no CPU
 * is spent spinning (spinning on two cores slows the exiting child itself), and the exit is seen the
 * moment it happens.
 */
export async function waitExit(pid: number): Promise<ExitStatus> {
  const c = bind();
  const first = tryReap(pid);
  if (first !== undefined) return first;
  const pidfd = c.pidfd_open(pid, 0);
  try {
    for (;;) {
      if (pidfd >= 0) {
        const pfd = Buffer.alloc(8);
        pfd.writeInt32LE(pidfd, 0);
        pfd.writeInt16LE(POLLIN, 4);
        await new Promise<void>((resolve) => c.poll.async(pfd, 1, POLL_SLICE_MS, () => resolve()));
      } else {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const st = tryReap(pid);
      if (st !== undefined) return st;
    }
  } finally {
    if (pidfd >= 0) c.close(pidfd);
  }
}
