import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const WORKER = join(dirname(fileURLToPath(import.meta.url)), "gateway-calls-worker.mjs");

/** What OpenClaw's CLI passes to callGatewayFromCli: its options and the call's extras. */
export interface CliCall {
  readonly opts: Readonly<Record<string, unknown>>;
  readonly extra: Readonly<Record<string, unknown>>;
}

/**
 * Gateway calls made as OpenClaw's CLI makes them (`openclaw gateway call`, `openclaw agent`),
 * by one long-lived process per home instead of a CLI start per call (see the worker).
 */
export class GatewayCalls {
  private worker: ChildProcess | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private stderr = "";

  constructor(
    private readonly install: () => { readonly node: string; readonly entry: string },
    private readonly env: () => NodeJS.ProcessEnv,
    private readonly cwd: string,
  ) {}

  call(method: string, params: unknown, how: CliCall): Promise<unknown> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.stdin?.write(`${JSON.stringify({ id, method, params, opts: how.opts, extra: how.extra })}\n`);
    });
  }

  close(): void {
    this.worker?.kill("SIGKILL");
    this.worker = null;
  }

  private started(): ChildProcess {
    if (this.worker !== null) return this.worker;
    const { node, entry } = this.install();
    const runtime = join(dirname(entry), "dist", "plugin-sdk", "gateway-runtime.js");
    const worker = spawn(node, [WORKER, runtime], { env: this.env(), cwd: this.cwd, stdio: ["pipe", "ignore", "pipe", "pipe"] });
    // A write to a worker that has died fails its pipe; the exit below fails the calls instead.
    worker.stdin?.on("error", () => undefined);
    worker.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-4000);
    });
    const answers = worker.stdio[3];
    if (answers === null || answers === undefined || !("on" in answers)) throw new Error("the gateway-calls worker has no answer pipe");
    createInterface({ input: answers as NodeJS.ReadableStream }).on("line", (line) => {
      const answer = JSON.parse(line) as { id: number; result?: unknown; error?: string };
      const waiting = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if (answer.error !== undefined) waiting?.reject(new Error(answer.error));
      else waiting?.resolve(answer.result);
    });
    worker.once("exit", (code, signal) => {
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(new Error(`the gateway-calls worker exited (${code ?? signal}):\n${this.stderr}`));
      this.pending.clear();
    });
    this.worker = worker;
    return worker;
  }
}
