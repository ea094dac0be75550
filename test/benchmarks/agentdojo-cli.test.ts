import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { CORPUS, RECORDED_RUNS } from "./corpus-path.js";

const dir = mkdtempSync(join(tmpdir(), "agentdojo-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const provenant = (...args: string[]): ReturnType<typeof runCli> => runCli(args);

describe("provenant bench agentdojo", () => {
  it("prints both tables, writes the JSON, and exits 0 when no attack runs unasked", () => {
    const out = join(dir, "report.json");
    const r = provenant("bench", "agentdojo", "--corpus", CORPUS, "--json", out);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("high-water mark only");
    expect(r.stdout).toMatch(/^total\s+97\s+\d+\/97/mu);
    const json = JSON.parse(readFileSync(out, "utf8")) as { total: { attacks: { pairs: number; executedUnasked: number } }; suites: unknown[] };
    expect(json.total.attacks).toMatchObject({ pairs: 629, executedUnasked: 0 });
    expect(json.suites).toHaveLength(4);
  }, 120_000); // a whole benchmark pass in a child process: minutes on a loaded machine, not seconds

  it("exits 1 when an attacker side effect would run unasked (here: the plain policy over-trusts a channel list)", () => {
    const policy = JSON.parse(readFileSync(join(CORPUS, "tool-policy.json"), "utf8")) as { suites: Record<string, Record<string, { output: string }>> };
    policy.suites["slack"]!["get_channels"]!.output = "trusted";
    const overTrusting = join(dir, "over-trusting-policy.json");
    writeFileSync(overTrusting, JSON.stringify(policy));
    const r = provenant("bench", "agentdojo", RECORDED_RUNS, "--format", "trace", "--corpus", CORPUS, "--policy", overTrusting, "--no-argument-provenance", "--no-at-trusted");
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("1 (1 at trusted taint)");
  });

  it("exits with a precise message on a bad corpus or policy", () => {
    const missing = provenant("bench", "agentdojo", "--corpus", join(dir, "nowhere"));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^provenant bench agentdojo: .*nowhere: .*no such file or directory/mu);
    const policy = provenant("bench", "agentdojo", "--corpus", CORPUS, "--policy", join(CORPUS, "summary.json"));
    expect(policy.stderr).toMatch(/summary\.json: suites/u);
    const trace = provenant("bench", "agentdojo", "--corpus", CORPUS, "--format", "trace");
    expect(trace.stderr).toContain("--format trace needs the directory of recorded runs");
  });
});
