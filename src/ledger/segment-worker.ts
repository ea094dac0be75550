/** A worker thread of verification (see SegmentPool): verifies ranges from the back until it meets the walk, then ends. */
import { workerData } from "node:worker_threads";
import { type SegmentWork, claimRanges } from "./segment-pool.js";

claimRanges(workerData as SegmentWork);
