import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseTrace, TraceError } from "../../src/adapters/replay/trace-events.js";
import { replayFile } from "../../src/cli/replay.js";
import { SILENT_LOGGER } from "../../src/core/logger.js";
import { tempWorkspace, TRACE_DIR } from "../guard/helpers.js";
import { CLI_MAIN, runCli } from "./run-cli.js";

function traceFile(lines: string[]): string {
  const path = join(tempWorkspace(), "trace.jsonl");
  writeFileSync(path, lines.join("\n"));
  return path;
}

describe("provenant replay", () => {
  it("prints one JSON line per tool call and response", () => {
    const r = runCli(["replay", join(TRACE_DIR, "three-iterations.jsonl")]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.verdict ?? l.event)).toEqual(["allow", "allow", "confirm", "response"]);
    expect(Object.keys(lines[2]).sort()).toEqual(["code", "id", "reason", "taint", "tool", "verdict"]);
  });

  it("is repeatable with --workspace, whose state carries over", () => {
    const ws = tempWorkspace();
    expect(runCli(["replay", "--workspace", ws, join(TRACE_DIR, "three-iterations.jsonl")]).status).toBe(0);
    const again = runCli(["replay", "--workspace", ws, join(TRACE_DIR, "gateway.jsonl")]);
    expect(JSON.parse(again.stdout.split("\n")[0]!).taint).toBe("untrusted");
  });

  it("a reader that stops early (| head) ends the replay quietly, with a closed pipe's status 141 (not success) and no stack trace", () => {
    // Far more output than a pipe holds, so the CLI is still writing when the reader has gone.
    const calls = Array.from({ length: 4000 }, (_, i) => JSON.stringify({ event: "tool_call", id: `c${i}`, tool: "read", params: { path: "a.txt" } }));
    const trace = traceFile([JSON.stringify({ event: "turn", session: "s", text: "hi" }), ...calls]);
    const r = spawnSync("bash", ["-c", `"${process.execPath}" "${CLI_MAIN}" replay "${trace}" | head -c 100 >/dev/null; echo "status \${PIPESTATUS[0]}" >&2`], { encoding: "utf8" });
    expect(r.stderr).toBe("status 141\n");
  });

  it("without --workspace, the temporary state is removed when the replay ends; --graphs then needs --workspace", () => {
    const scratch = mkdtempSync(join(tmpdir(), "provenant-replay-tmpdir-"));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    try {
      const lines = replayFile(join(TRACE_DIR, "three-iterations.jsonl"), { logger: SILENT_LOGGER });
      expect(lines).toHaveLength(4);
      expect(readdirSync(scratch)).toEqual([]);
      expect(() => replayFile(join(TRACE_DIR, "three-iterations.jsonl"), { graphs: true, logger: SILENT_LOGGER })).toThrow(/--graphs records into the workspace: give --workspace/);
      expect(readdirSync(scratch)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it.each([
    [['{"event":"turn","session":"s","text":"hi"}', "{nope"], /^provenant replay: trace line 2: not valid JSON/],
    [['{"event":"turn","session":"s","text":"hi"}', '{"event":"teleport"}'], /trace line 2: unknown event "teleport"/],
    [['{"event":"turn","session":"s","text":"hi"}', '{"event":"config","config":{}}'], /trace line 2: a config event may only be the first/],
    [['{"event":"tool_call","id":"c","tool":"exec"}'], /trace line 1: a tool or response event needs a turn/],
    [['{"event":"turn","session":"s","text":".approve exec $CODE"}'], /trace line 1: \$CODE used in session s before/],
    [['{"event":"turn","session":"s","text":"hi","extra":1}'], /trace line 1: unknown field extra/],
    [['{"event":"tool_call","id":"c","tool":"exec","params":[]}'], /trace line 1: params: expected record/],
    [['{"event":"config","config":{"maxIterations":0}}'], /maxIterations: 0 is too small; minimum 1/],
  ])("a malformed trace stops with the line number and the reason (%#)", (lines, pattern) => {
    const r = runCli(["replay", traceFile(lines)]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(pattern);
    expect(r.stdout).toBe("");
  });

  it("the trace parser never throws anything but a TraceError", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ event: "turn", ...(typeof v === "object" && v !== null ? v : { v }) })))), (lines) => {
        try {
          parseTrace(lines.join("\n"));
        } catch (error) {
          expect(error).toBeInstanceOf(TraceError);
        }
      }),
    );
  });
});

describe("provenant demo", () => {
  it("replays the bundled session: exec stopped with a code, approved by the owner, then run", () => {
    const r = runCli(["demo"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/CONFIRM at 🔴 untrusted/);
    expect(r.stdout).toMatch(/owner command approve: accepted/);
    expect(r.stdout).toMatch(/ALLOW at 🔴 untrusted \(rule: approved\)/);
    expect(r.stdout).not.toContain("\x1b[");
  });
});

describe("provenant config check", () => {
  it("prints the resolved config, and warnings on stderr", () => {
    const path = join(tempWorkspace(), "c.json");
    writeFileSync(path, JSON.stringify({ taintPolicy: { owner: "allow", external: "allow" } }));
    const r = runCli(["config", "check", path]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).taintPolicy).toEqual({ trusted: "allow", shared: "confirm", external: "confirm", untrusted: "confirm" });
    expect(r.stderr).toMatch(/deprecated/);
    expect(r.stderr).toMatch(/corrected to "confirm"/);
  });

  it("reads the plugin block of an openclaw.json, and YAML", () => {
    const dir = tempWorkspace();
    writeFileSync(join(dir, "openclaw.json"), JSON.stringify({ plugins: { entries: { provenant: { config: { maxIterations: 4 } } } } }));
    expect(JSON.parse(runCli(["config", "check", join(dir, "openclaw.json")]).stdout).maxIterations).toBe(4);
    writeFileSync(join(dir, "c.yaml"), "developerMode: true\n");
    expect(JSON.parse(runCli(["config", "check", join(dir, "c.yaml")]).stdout).developerMode).toBe(true);
  });

  it("names every problem and exits 2", () => {
    const path = join(tempWorkspace(), "c.json");
    writeFileSync(path, JSON.stringify({ taintPolicy: { untrusted: "deny" }, approvalTtl: 5 }));
    const r = runCli(["config", "check", path]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('taintPolicy.untrusted: "deny" is not allowed; expected one of "allow", "confirm", "restrict"');
    expect(r.stderr).toContain('unknown key "approvalTtl"');
  });
});
