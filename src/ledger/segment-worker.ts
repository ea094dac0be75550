/** A worker thread of verification (see SegmentPool): verifies ranges from the back until it meets the walk, then ends. */
import { workerData } from "node:worker_threads";
import { type WorkerInput, claimRanges } from "./segment-pool.js";

const { work, port } = workerData as WorkerInput;
try {
  claimRanges(work, port);
} finally {
  port?.close();
}
