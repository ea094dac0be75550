import { signedRequestLine, startCall } from "../src/broker/broker-client.js";
import { median, printTable, spawnTrueDirectly, startDaemonProcess } from "./lib/broker-fixture.js";

/**
 * Requests per second of /bin/true through the broker with 1, 8 and 64 clients at once, against
 * the same number of concurrent direct spawns from Node, and the daemon's resident memory after the
 * heaviest run.
 */
const REQUESTS = 400;
const ROUNDS = 3;


async function rate(concurrency: number, one: () => Promise<void>): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < REQUESTS) await one();
    }),
  );
  return REQUESTS / ((performance.now() - t) / 1000);
}

async function main(): Promise<void> {
  const daemon = await startDaemonProcess({ true: { binary: "/bin/true" } });
  const idleRss = daemon.rssKiB();
  const broker = async (): Promise<void> => {
    const call = startCall(daemon.socketPath, signedRequestLine(daemon.secret, { tool: "true", args: [], cwd: "/" }));
    call.endStdin();
    const r = await call.result;
    if (r.kind !== "done") throw new Error(`unexpected result ${JSON.stringify(r)}`);
  };
  await rate(8, broker);
  await rate(8, spawnTrueDirectly);
  const rows: string[][] = [];
  let peakRss = 0;
  for (const c of [1, 8, 64]) {
    const b: number[] = [];
    const d: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      d.push(await rate(c, spawnTrueDirectly));
      b.push(await rate(c, broker));
      peakRss = Math.max(peakRss, daemon.rssKiB());
    }
    rows.push([String(c), median(d).toFixed(0), median(b).toFixed(0), `${(median(b) / median(d)).toFixed(2)}x`]);
  }
  await daemon.stop();
  printTable(`/bin/true requests per second (median of ${ROUNDS} runs of ${REQUESTS})`, ["clients", "direct spawn/s", "broker req/s", "broker / direct"], rows);
  printTable("daemon memory (plain Node running the bundled daemon)", ["state", "RSS MiB"], [
    ["idle after start", (idleRss / 1024).toFixed(1)],
    ["peak during the runs", (peakRss / 1024).toFixed(1)],
  ]);
}

await main();
