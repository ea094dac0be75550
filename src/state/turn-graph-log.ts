import { closeSync, constants, fsyncSync, lstatSync, openSync, renameSync, writeSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { TRUST_LEVELS } from "../core/trust-levels.js";
import type { ProvenanceGraph } from "../core/provenance-graph.js";
import { ensureDirDurable } from "./durable-dir.js";
import { readStateFile } from "./state-file-read.js";

/** `<workspace>/.provenance/turn-graphs.jsonl`: one sealed turn's provenance graph per line. */
export function turnGraphLogPath(workspaceDir: string): string {
  return join(workspaceDir, ".provenance", "turn-graphs.jsonl");
}

/**
 * The previous generation: the log is renamed to it before an append would take the log past
 * `TURN_GRAPH_LOG_MAX_BYTES`, replacing the one before. The log and this file together stay under
 * twice the bound plus one record.
 */
export function previousTurnGraphLogPath(workspaceDir: string): string {
  return join(workspaceDir, ".provenance", "turn-graphs.1.jsonl");
}

/** Where the log rotates: months of turns for one owner, and well under what the reader takes. */
export const TURN_GRAPH_LOG_MAX_BYTES = 16 * 1024 * 1024;

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
  readonly bad: readonly { readonly file: string; readonly line: number; readonly error: string }[];
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

/**
 * Appends one sealed turn, durable before it returns (one write of one line: O_APPEND keeps lines
 * whole). O_NOFOLLOW: a link planted at the log's path is refused, not written through.
 */
export function appendTurnGraph(workspaceDir: string, sessionId: string, graph: ProvenanceGraph, endedAt: Date, maxBytes = TURN_GRAPH_LOG_MAX_BYTES): void {
  const record: TurnGraphRecord = { version: 1, sessionId, endedAt: endedAt.toISOString(), graph: JSON.parse(JSON.stringify(graph.toJSON())) as TurnGraphRecord["graph"] };
  const line = Buffer.from(`${JSON.stringify(record)}\n`, "utf8");
  const path = turnGraphLogPath(workspaceDir);
  ensureDirDurable(join(workspaceDir, ".provenance"));
  const size = regularFileSize(path);
  if (size > 0 && size + line.length > maxBytes) renameSync(path, previousTurnGraphLogPath(workspaceDir));
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  try {
    let off = 0;
    while (off < line.length) off += writeSync(fd, line, off, line.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The size of the file at `path`, 0 when there is none; anything but a regular file is refused. */
function regularFileSize(path: string): number {
  try {
    const st = lstatSync(path);
    if (!st.isFile()) throw new Error(`${path} is not a regular file; the turn graph log is not written through it`);
    return st.size;
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return 0;
    throw error;
  }
}

/**
 * Every turn graph in the workspace, oldest first (the previous generation, then the log); a line
 * that does not parse is reported, not fatal.
 */
export function readTurnGraphs(workspaceDir: string): TurnGraphLog {
  const records: TurnGraphRecord[] = [];
  const bad: { file: string; line: number; error: string }[] = [];
  for (const path of [previousTurnGraphLogPath(workspaceDir), turnGraphLogPath(workspaceDir)]) {
    const file = basename(path);
    const read = readStateFile(path);
    if (read.kind === "missing") continue;
    if (read.kind === "bad") {
      bad.push({ file, line: 0, error: `${file} ${read.detail}` });
      continue;
    }
    for (const [i, line] of read.text.split("\n").entries()) {
      if (line === "") continue;
      try {
        records.push(parseTurnGraphRecord(line));
      } catch (error) {
        bad.push({ file, line: i + 1, error: error instanceof Error ? error.message : String(error) });
      }
    }
  }
  return { records, bad };
}
