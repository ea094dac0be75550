import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { ProvenanceGraph } from "../../src/core/provenance-graph.js";
import { appendTurnGraph, parseTurnGraphRecord, previousTurnGraphLogPath, readTurnGraphs, turnGraphLogPath } from "../../src/state/turn-graph-log.js";

const dirs: string[] = [];
const workspace = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "provenant-graphs-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("turn graph log", () => {
  it("reads back what was appended, in order", () => {
    const ws = workspace();
    const g = new ProvenanceGraph("s#1");
    g.add("system_prompt", "system prompt", "trusted");
    g.add("tool", "web_fetch response", "untrusted", { tool: "web_fetch" });
    g.seal();
    appendTurnGraph(ws, "s", g, new Date("2026-01-01T00:00:00Z"));
    appendTurnGraph(ws, "t", g, new Date("2026-01-01T00:00:01Z"));
    const log = readTurnGraphs(ws);
    expect(log.bad).toEqual([]);
    expect(log.records.map((r) => r.sessionId)).toEqual(["s", "t"]);
    expect(log.records[0]?.graph).toEqual(JSON.parse(JSON.stringify(g.toJSON())));
  });

  it("reports a bad line by number and keeps the good ones", () => {
    const ws = workspace();
    const g = new ProvenanceGraph("s#1");
    g.add("system_prompt", "system prompt", "trusted");
    appendTurnGraph(ws, "s", g, new Date());
    appendFileSync(turnGraphLogPath(ws), '{"version":1}\nnot json\n');
    appendTurnGraph(ws, "u", g, new Date());
    const log = readTurnGraphs(ws);
    expect(log.records.map((r) => r.sessionId)).toEqual(["s", "u"]);
    expect(log.bad.map((b) => b.line)).toEqual([2, 3]);
  });

  it("rotates before an append would pass the bound, keeping one previous generation, and reads both in order", () => {
    const ws = workspace();
    const g = new ProvenanceGraph("s#1");
    g.add("system_prompt", "system prompt", "trusted");
    g.seal();
    appendTurnGraph(ws, "a", g, new Date("2026-01-01T00:00:00Z"));
    const one = statSync(turnGraphLogPath(ws)).size;
    const bound = one * 2;
    appendTurnGraph(ws, "b", g, new Date("2026-01-01T00:00:01Z"), bound);
    expect(existsSync(previousTurnGraphLogPath(ws))).toBe(false);
    appendTurnGraph(ws, "c", g, new Date("2026-01-01T00:00:02Z"), bound);
    expect(readTurnGraphs(ws).records.map((r) => r.sessionId)).toEqual(["a", "b", "c"]);
    appendTurnGraph(ws, "d", g, new Date("2026-01-01T00:00:03Z"), bound);
    appendTurnGraph(ws, "e", g, new Date("2026-01-01T00:00:04Z"), bound);
    // a and b went with the generation before the previous one; each file stays within the bound.
    expect(readTurnGraphs(ws).records.map((r) => r.sessionId)).toEqual(["c", "d", "e"]);
    expect(statSync(turnGraphLogPath(ws)).size).toBeLessThanOrEqual(bound);
    expect(statSync(previousTurnGraphLogPath(ws)).size).toBeLessThanOrEqual(bound);
  });

  it("refuses to write through anything planted at the log's path, and reports it when reading", () => {
    const ws = workspace();
    mkdirSync(join(ws, ".provenance"));
    const target = join(ws, "target.txt");
    writeFileSync(target, "x\n");
    symlinkSync(target, turnGraphLogPath(ws));
    const g = new ProvenanceGraph("s#1");
    g.add("system_prompt", "system prompt", "trusted");
    expect(() => appendTurnGraph(ws, "s", g, new Date())).toThrow(/not a regular file/);
    expect(readFileSync(target, "utf8")).toBe("x\n");
    expect(readTurnGraphs(ws).bad).toEqual([{ file: "turn-graphs.jsonl", line: 0, error: expect.stringMatching(/symbolic link/) }]);
  });

  it("refuses a parent that does not precede its node, a node out of place, a source that is not a node", () => {
    const base = { version: 1, sessionId: "s", endedAt: "2026-01-01T00:00:00.000Z" };
    const node = (id: number, parents: number[]) => ({ id, kind: "tool", label: "x", trust: "trusted", tool: null, parents });
    const graph = (nodes: unknown[], taintSource: number | null = null) => JSON.stringify({ ...base, graph: { turnId: "t", maxTaint: "trusted", taintSource, sealed: true, nodes } });
    expect(() => parseTurnGraphRecord(graph([node(0, [0])]))).toThrow(/does not precede/);
    expect(() => parseTurnGraphRecord(graph([node(0, []), node(1, [5])]))).toThrow(/does not precede/);
    expect(() => parseTurnGraphRecord(graph([node(1, [])]))).toThrow(/has id/);
    expect(() => parseTurnGraphRecord(graph([node(0, [])], 3))).toThrow(/not a node/);
    expect(() => parseTurnGraphRecord(JSON.stringify({ ...base, __proto__: 1, graph: {} }))).toThrow();
  });

  it("parses any input to a record or an Error, never anything else", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ version: 1, sessionId: "s", endedAt: "2026-01-01T00:00:00Z", graph: v }))), (line) => {
        try {
          const r = parseTurnGraphRecord(line);
          r.graph.nodes.forEach((n, i) => {
            expect(n.id).toBe(i);
            for (const p of n.parents) expect(p).toBeLessThan(i);
          });
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
