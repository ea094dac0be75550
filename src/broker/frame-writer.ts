import type { Socket } from "node:net";

/**
 * Writes frames to a client with a write deadline: whenever bytes are queued because the client is not
 * reading, it has `timeoutMs` to take them, or `onStall` fires (the caller then kills the tool and drops
 * the connection). `write` reports backpressure so producers can pause instead of queueing without bound.
 */
const HIGH_WATER = 1024 * 1024;

export class FrameWriter {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly timeoutMs: number,
    private readonly onStall: () => void,
  ) {
    socket.on("drain", () => this.clearTimer());
    socket.on("close", () => {
      this.closed = true;
      this.clearTimer();
    });
  }

  get writable(): boolean {
    return !this.closed && !this.socket.destroyed && this.socket.writable;
  }

  /**
   * False when more than HIGH_WATER bytes are queued: wait for `drain` before producing more. The
   * threshold is well above one frame so a fast client never makes the producer stop and start.
   */
  write(frame: Buffer | string): boolean {
    if (!this.writable) return true;
    this.socket.write(frame);
    const queued = this.socket.writableLength;
    if (queued > 0) this.armTimer();
    return queued < HIGH_WATER;
  }

  onDrain(fn: () => void): void {
    this.socket.once("drain", fn);
  }

  /** Ends the connection once everything queued has been taken, still under the write deadline. */
  end(last?: Buffer | string): void {
    if (!this.writable) return;
    if (last !== undefined) this.socket.end(last);
    else this.socket.end();
    if (this.socket.writableLength > 0) {
      this.armTimer();
      this.socket.once("finish", () => this.clearTimer());
    }
  }

  private armTimer(): void {
    if (this.timer !== undefined || this.timeoutMs <= 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.socket.writableLength > 0 && !this.closed) this.onStall();
    }, this.timeoutMs);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}
