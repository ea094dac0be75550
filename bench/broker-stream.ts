import { spawn } from "node:child_process";
import { signedRequestLine, startCall } from "../src/broker/broker-client.js";
import { median, printTable, startDaemonProcess } from "./lib/broker-fixture.js";

/**
 * 100 MB of stdout (head -c from /dev/zero) streamed through the broker and decoded by the client,
 * against reading the same tool's pipe directly from Node in this process: the pipe's raw throughput
 * on this machine, for scale.
 */
const BYTES = 100 * 1024 * 1024;
const RUNS = 5;
const REFERENCE = "76-152";

function direct(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    let n = 0;
    const c = spawn("/usr/bin/head", ["-c", String(BYTES), "/dev/zero"], { stdio: ["ignore", "pipe", "ignore"] });
    c.stdout.on("data", (d: Buffer) => (n += d.length));
    c.on("error", reject);
    c.on("close", () => (n === BYTES ? resolve(BYTES / 1e6 / ((performance.now() - t) / 1000)) : reject(new Error(`short read ${n}`))));
  });
}

async function main(): Promise<void> {
  const daemon = await startDaemonProcess({ head: { binary: "/usr/bin/head" } });
  const broker = async (): Promise<number> => {
    const t = performance.now();
    let n = 0;
    const call = startCall(daemon.socketPath, signedRequestLine(daemon.secret, { tool: "head", args: ["-c", String(BYTES), "/dev/zero"], cwd: "/" }), {
      onStdout: (d) => (n += d.length),
    });
    call.endStdin();
    const r = await call.result;
    if (r.kind !== "done" || n !== BYTES) throw new Error(`short stream ${n} ${JSON.stringify(r)}`);
    return BYTES / 1e6 / ((performance.now() - t) / 1000);
  };
  // Warm-up: the first runs include JIT compilation of both sides' hot paths.
  for (let i = 0; i < 2; i++) {
    await broker();
    await direct();
  }
  const b: number[] = [];
  const d: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    d.push(await direct());
    b.push(await broker());
  }
  const rss = daemon.rssKiB();
  await daemon.stop();
  printTable(`100 MB of stdout (median of ${RUNS} runs, MB = 10^6 bytes)`, ["path", "MB/s", "of raw pipe"], [
    ["raw pipe into Node (baseline)", median(d).toFixed(0), "1.00x"],
    ["through the broker, decoded by the client", median(b).toFixed(0), `${(median(b) / median(d)).toFixed(2)}x`],
    ["reference daemon, raw client (published)", REFERENCE, ""],
  ]);
  console.log(`daemon RSS after streaming: ${(rss / 1024).toFixed(1)} MiB`);
}

await main();
