/** A worker thread of the verification pre-pass: claims ranges until none is left, then ends. */
import { workerData } from "node:worker_threads";
import { type SegmentWork, claimRanges } from "./segment-pool.js";

claimRanges(workerData as SegmentWork);
