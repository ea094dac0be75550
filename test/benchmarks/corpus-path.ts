import { join } from "node:path";

/** The shared AgentDojo export, next to the project (see ../shared/corpora/README.md). */
export const CORPUS = join(import.meta.dirname, "../../../shared/corpora/agentdojo-v1");
export const RECORDED_RUNS = join(import.meta.dirname, "fixtures/agentdojo-runs");
export const CORPORA = join(import.meta.dirname, "../../../shared/corpora");
export const RECORDED_RUNS_VERSIONS = join(import.meta.dirname, "fixtures/agentdojo-runs-versions");
