import type { Socket } from "node:net";
import type { BrokerLog } from "./broker-log.js";
import type { FrameWriter } from "./frame-writer.js";
import { type ForwardedSignal, donePayload, errorPayload, outputFrame } from "./wire.js";
import { encodeFrame } from "./frame.js";
import { type ExitStatus, type SpawnedSession, SpawnError, spawnSession, waitExit } from "./session-spawn.js";

/**
 * One tool execution. The tool runs in its own process group (its own session), so a timeout, a
 * forwarded signal or a vanished client reaches everything it started: SIGTERM to the group, then
 * SIGKILL after the grace period. Output is framed and sent as it is read, with backpressure: when the
 * client is slow the pipes are paused and the tool blocks on write, so nothing is spooled. The `done`
 * frame is written only once both pipes have reached end of file and the process has been reaped, so
 * no tail output is lost (the reference raced its wait against its pipe readers).
 */
export interface ToolRunSpec {
  readonly binary: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly timeoutMs: number;
  /** 0: unlimited. */
  readonly maxOutputSize: number;
  readonly killGraceMs: number;
}

export type ToolRunEnd = "done" | "timeout" | "output-limit" | "aborted";

// Beyond this much unwritten stdin, stop reading the client until the tool catches up.
const STDIN_HIGH_WATER = 4 * 1024 * 1024;
// Output gathered into one frame at most. Larger is slower, not faster: the base64 text of more than
// about 96 KiB lands in V8's large-object space, and encoding 256 KiB pieces measured a third of the
// speed of 64 KiB ones (both far below the 16 MiB frame limit).
const BATCH_BYTES = 64 * 1024;
// After SIGKILL, pipes still held open by a process that left the group are given this long, then cut.
const ORPHAN_PIPE_GRACE_MS = 1000;

export class ToolRun {
  private child: SpawnedSession | undefined;
  private openPipes = 2;
  private exit: ExitStatus | undefined;
  private processGroup = 0;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  private orphanTimer: NodeJS.Timeout | undefined;
  private outputBytes = 0;
  private ending: ToolRunEnd | undefined;
  private finished = false;
  private paused = false;
  private flushTimer: NodeJS.Immediate | undefined;
  private readonly batches = { stdout: new OutputBatch(), stderr: new OutputBatch() };
  private readonly settled: Promise<ToolRunEnd>;
  private resolveSettled!: (end: ToolRunEnd) => void;

  constructor(
    private readonly spec: ToolRunSpec,
    private readonly writer: FrameWriter,
    private readonly log: BrokerLog,
    /** Called when unwritten stdin crosses the high-water mark (true) and when it drains (false). */
    private readonly stdinBackpressure: (blocked: boolean) => void,
  ) {
    this.settled = new Promise((resolve) => (this.resolveSettled = resolve));
  }

  /** The tool's process group (its pid), once started. */
  get pgid(): number | undefined {
    return this.processGroup > 0 ? this.processGroup : undefined;
  }

  /** Resolves when the run has ended and its last frame has been handed to the writer. */
  get ended(): Promise<ToolRunEnd> {
    return this.settled;
  }

  /** Starts the tool; false when it could not be started (nothing has been written to the client). */
  async start(): Promise<boolean> {
    let child: SpawnedSession;
    try {
      child = await spawnSession(this.spec.binary, this.spec.args, this.spec.cwd, this.spec.env, {
        stdout: (bytes) => this.collect("stdout", bytes),
        stderr: (bytes) => this.collect("stderr", bytes),
      });
    } catch (error) {
      this.log("warn", "spawn_failed", { errno: error instanceof SpawnError ? error.errno : undefined, error: (error as Error).message });
      return false;
    }
    this.child = child;
    this.processGroup = child.pid;
    child.stdin.on("error", () => {
      // The tool closed its stdin or exited: later stdin is dropped, as writing to a closed pipe would be.
    });
    child.stdin.on("drain", () => this.stdinBackpressure(false));
    this.watch(child.stdout, "stdout");
    this.watch(child.stderr, "stderr");
    if (this.ending === "aborted") {
      // Aborted while it was starting: the SIGTERM then had no group to go to.
      this.killGroup("SIGTERM");
    }
    if (this.spec.timeoutMs > 0) {
      this.timeoutTimer = setTimeout(() => this.terminate("timeout"), this.spec.timeoutMs);
    }
    return true;
  }

  private pipeClosed(): void {
    if (--this.openPipes > 0) return;
    // Both pipes are at end of file: the tool is exiting (or has handed them off). Reap it.
    void waitExit(this.processGroup).then((status) => {
      this.exit = status;
      this.finish();
    });
  }

  writeStdin(data: Buffer): void {
    const stdin = this.child?.stdin;
    if (stdin === undefined || stdin.writableEnded || stdin.destroyed) return;
    stdin.write(data);
    if (stdin.writableLength > STDIN_HIGH_WATER) this.stdinBackpressure(true);
  }

  endStdin(): void {
    const stdin = this.child?.stdin;
    if (stdin !== undefined && !stdin.writableEnded) stdin.end();
  }

  signal(sig: ForwardedSignal): void {
    this.killGroup(sig);
  }

  /** The client is gone or the connection outlived its limit: stop the tool, send nothing more. */
  abort(): void {
    this.terminate("aborted");
  }

  private watch(stream: Socket, name: "stdout" | "stderr"): void {
    stream.on("error", (error) => this.log("warn", "pipe_error", { stream: name, error: error.message }));
    // Whatever was read before end of file goes out before the pipe counts as closed.
    stream.on("end", () => this.flush(name));
    stream.on("close", () => {
      this.flush(name);
      this.pipeClosed();
    });
  }

  /**
   * Gathers what the pipe delivered in this turn of the event loop into one frame: a tool writing in
   * small pieces would otherwise cost a frame, a base64 pass and a socket write per piece. The frame
   * goes out at the end of the turn (setImmediate) or as soon as a batch is full, so output still
   * streams as it is produced.
   */
  private collect(name: "stdout" | "stderr", bytes: Buffer): void {
    if (this.ending === "output-limit" || this.ending === "aborted") return;
    let piece = bytes;
    const limit = this.spec.maxOutputSize;
    if (limit > 0 && this.outputBytes + piece.length > limit) {
      piece = piece.subarray(0, limit - this.outputBytes);
      this.outputBytes = limit;
      this.batches[name].add(piece);
      this.flush("stdout");
      this.flush("stderr");
      this.log("warn", "output_limit_exceeded", { limit });
      this.ending = "output-limit";
      this.killGroup("SIGKILL");
      this.armOrphanCut();
      // Whatever is still in the pipes is dropped; reading it is what lets them reach end of file.
      this.resumePipes();
      return;
    }
    this.outputBytes += piece.length;
    const batch = this.batches[name];
    if (batch.length + piece.length > BATCH_BYTES) this.flush(name);
    batch.add(piece);
    if (batch.length >= BATCH_BYTES) this.flush(name);
    else this.flushTimer ??= setImmediate(() => {
      this.flushTimer = undefined;
      this.flush("stdout");
      this.flush("stderr");
    });
  }

  private flush(name: "stdout" | "stderr"): void {
    const batch = this.batches[name];
    if (batch.length === 0) return;
    const frame = outputFrame(name, batch.bytes());
    batch.clear();
    if (this.ending === "aborted") return;
    if (!this.writer.write(frame) && !this.paused) {
      this.paused = true;
      this.child?.stdout.pause();
      this.child?.stderr.pause();
      this.writer.onDrain(() => {
        this.paused = false;
        this.resumePipes();
      });
    }
  }

  private resumePipes(): void {
    this.child?.stdout.resume();
    this.child?.stderr.resume();
  }

  private terminate(reason: ToolRunEnd): void {
    if (this.finished || this.ending !== undefined) return;
    this.ending = reason;
    this.log("info", reason === "timeout" ? "tool_timeout" : "tool_aborted", {});
    this.killGroup("SIGTERM");
    this.killTimer = setTimeout(() => {
      this.killGroup("SIGKILL");
      this.armOrphanCut();
    }, this.spec.killGraceMs);
    if (reason === "aborted") {
      // Nobody is reading: let the pipes drain into nothing so the tool is not blocked on a write.
      this.resumePipes();
    }
  }

  private armOrphanCut(): void {
    this.orphanTimer ??= setTimeout(() => {
      // Every process in the group is dead; whatever still holds the pipes escaped it. Stop waiting.
      this.child?.stdout.destroy();
      this.child?.stderr.destroy();
    }, ORPHAN_PIPE_GRACE_MS);
  }

  private killGroup(sig: NodeJS.Signals): void {
    if (this.processGroup <= 0 || this.finished) return;
    try {
      process.kill(-this.processGroup, sig);
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timeoutTimer);
    clearTimeout(this.killTimer);
    clearTimeout(this.orphanTimer);
    if (this.flushTimer !== undefined) clearImmediate(this.flushTimer);
    this.flush("stdout");
    this.flush("stderr");
    this.child?.stdin.destroy();
    const code = this.exit?.code ?? -1;
    const end: ToolRunEnd = this.ending ?? "done";
    if (end === "done") this.writer.end(encodeFrame(donePayload(code, false)));
    else if (end === "timeout") this.writer.end(encodeFrame(donePayload(-1, true)));
    else if (end === "output-limit") this.writer.end(encodeFrame(errorPayload("process error")));
    this.log("info", "tool_finished", { end, exit_code: code, signal: this.exit?.signal ?? null, output_bytes: this.outputBytes });
    this.resolveSettled(end);
  }
}

/** Bytes copied out of a pipe's reused read buffer until they are framed. */
class OutputBatch {
  private buf = Buffer.allocUnsafe(0);
  private used = 0;

  get length(): number {
    return this.used;
  }

  add(bytes: Buffer): void {
    if (this.used + bytes.length > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(BATCH_BYTES, this.used + bytes.length));
      this.buf.copy(grown, 0, 0, this.used);
      this.buf = grown;
    }
    bytes.copy(this.buf, this.used);
    this.used += bytes.length;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.used);
  }

  clear(): void {
    this.used = 0;
  }
}
