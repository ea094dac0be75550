import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { TRUST_LEVELS } from "../core/trust-levels.js";
import type { ProvenanceGraph } from "../core/provenance-graph.js";
import { ensureDirDurable } from "./durable-dir.js";
import { readStateFile } from "./state-file-read.js";

/** `<workspace>/.provenance/turn-graphs.jsonl`: one sealed turn's provenance graph per line. */
export function turnGraphLogPath(workspaceDir: string): string {
  return join(workspaceDir, ".provenance", "turn-graphs.jsonl");
}

/** More nodes than any turn the iteration cap allows; a bigger graph is not ours. */
export const MAX_GRAPH_NODES = 100_000;

const NODE_KINDS = ["system_prompt", "history", "watermark", "llm_call", "tool", "output", "reset"] as const;

const nodeSchema = z.strictObject({
  id: z.int().min(0),
  kind: z.enum(NODE_KINDS),
  label: z.string(),
  trust: z.enum(TRUST_LEVELS),
  tool: z.string().nullable(),
  parents: z.array(z.int().min(0)),
});

const recordSchema = z.strictObject({
  version: z.literal(1),
  sessionId: z.string(),
  endedAt: z.iso.datetime(),
  graph: z.strictObject({
    turnId: z.string(),
    maxTaint: z.enum(TRUST_LEVELS),
    taintSource: z.int().min(0).nullable(),
    sealed: z.boolean(),
    nodes: z.array(nodeSchema).max(MAX_GRAPH_NODES),
  }),
});

export type TurnGraphRecord = z.infer<typeof recordSchema>;
export type TurnGraphNode = TurnGraphRecord["graph"]["nodes"][number];

/** What the reader found: the records that parse, and where the others are. */
export interface TurnGraphLog {
  readonly records: readonly TurnGraphRecord[];
  readonly bad: readonly { readonly line: number; readonly error: string }[];
}

/**
 * One record as read from the file, or why it is not one: the shape, then that every node's id is
 * its position and its parents precede it (what ProvenanceGraph guarantees), so a layout of it
 * always terminates.
 */
export function parseTurnGraphRecord(line: string): TurnGraphRecord {
  const parsed = recordSchema.safeParse(JSON.parse(line));
  if (!parsed.success) throw new Error(z.prettifyError(parsed.error).replace(/\n/g, "; "));
  const { nodes, taintSource } = parsed.data.graph;
  for (const [i, node] of nodes.entries()) {
    if (node.id !== i) throw new Error(`node ${i} has id ${node.id}`);
    for (const p of node.parents) if (p >= i) throw new Error(`node ${i} names parent ${p}, which does not precede it`);
  }
  if (taintSource !== null && taintSource >= nodes.length) throw new Error(`taintSource ${taintSource} is not a node`);
  return parsed.data;
}

/** Appends one sealed turn, durable before it returns (one write of one line: O_APPEND keeps lines whole). */
export function appendTurnGraph(workspaceDir: string, sessionId: string, graph: ProvenanceGraph, endedAt: Date): void {
  const record: TurnGraphRecord = { version: 1, sessionId, endedAt: endedAt.toISOString(), graph: JSON.parse(JSON.stringify(graph.toJSON())) as TurnGraphRecord["graph"] };
  const path = turnGraphLogPath(workspaceDir);
  ensureDirDurable(join(workspaceDir, ".provenance"));
  const fd = openSync(path, "a", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(record)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Every turn graph in the workspace, oldest first; a line that does not parse is reported, not fatal. */
export function readTurnGraphs(workspaceDir: string): TurnGraphLog {
  const read = readStateFile(turnGraphLogPath(workspaceDir));
  if (read.kind === "missing") return { records: [], bad: [] };
  if (read.kind === "bad") return { records: [], bad: [{ line: 0, error: `turn-graphs.jsonl ${read.detail}` }] };
  const records: TurnGraphRecord[] = [];
  const bad: { line: number; error: string }[] = [];
  for (const [i, line] of read.text.split("\n").entries()) {
    if (line === "") continue;
    try {
      records.push(parseTurnGraphRecord(line));
    } catch (error) {
      bad.push({ line: i + 1, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { records, bad };
}
