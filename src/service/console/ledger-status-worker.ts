/** Verifies the ledger off the server's thread, so the page can show progress while it runs. */
import { parentPort, workerData } from "node:worker_threads";
import { ledgerStatus } from "./ledger-status.js";

const { ledgerPath, publicKeyPath } = workerData as { ledgerPath: string; publicKeyPath: string };
let last = -1;
try {
  const status = ledgerStatus(ledgerPath, publicKeyPath, (done, total) => {
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    if (percent === last) return;
    last = percent;
    parentPort?.postMessage({ kind: "progress", done, total });
  });
  parentPort?.postMessage({ kind: "status", status });
} catch (error) {
  parentPort?.postMessage({ kind: "error", message: error instanceof Error ? error.message : String(error) });
}
