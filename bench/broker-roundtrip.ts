import { type CallResult, signedRequestLine, startCall } from "../src/broker/broker-client.js";
import { median, printTable, spawnTrueDirectly, startDaemonProcess } from "./lib/broker-fixture.js";

/**
 * Round trip of /bin/true through the broker (sign, connect, authenticate, spawn, stream, done)
 * against spawning /bin/true directly from Node in this same process. Medians over interleaved rounds.
 */
const ROUNDS = 7;
const PER_ROUND = 100;
const REFERENCE_MS = 2.8;


async function main(): Promise<void> {
  const daemon = await startDaemonProcess({ true: { binary: "/bin/true" } });
  const broker = async (): Promise<void> => {
    const call = startCall(daemon.socketPath, signedRequestLine(daemon.secret, { tool: "true", args: [], cwd: "/" }));
    call.endStdin();
    const r: CallResult = await call.result;
    if (r.kind !== "done" || r.exitCode !== 0) throw new Error(`unexpected result ${JSON.stringify(r)}`);
  };
  const time = async (fn: () => Promise<void>): Promise<number> => {
    const t = performance.now();
    for (let i = 0; i < PER_ROUND; i++) await fn();
    return (performance.now() - t) / PER_ROUND;
  };
  for (let i = 0; i < 30; i++) {
    await spawnTrueDirectly();
    await broker();
  }
  const directMs: number[] = [];
  const brokerMs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    directMs.push(await time(spawnTrueDirectly));
    brokerMs.push(await time(broker));
  }
  await daemon.stop();
  const d = median(directMs);
  const b = median(brokerMs);
  printTable(`/bin/true round trip (median of ${ROUNDS} rounds x ${PER_ROUND} sequential requests)`, ["path", "ms/request", "ratio"], [
    ["spawn from Node (baseline)", d.toFixed(3), "1.00x"],
    ["through the broker", b.toFixed(3), `${(b / d).toFixed(2)}x`],
    ["reference daemon, raw client (published)", REFERENCE_MS.toFixed(3), `${(REFERENCE_MS / d).toFixed(2)}x`],
  ]);
}

await main();
