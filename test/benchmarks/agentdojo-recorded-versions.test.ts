import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { benchAgentDojo } from "../../src/benchmarks/agentdojo/bench-agentdojo.js";
import type { GuardFactory } from "../../src/benchmarks/agentdojo/benchmark.js";
import { corpusFor, loadCorpora } from "../../src/benchmarks/agentdojo/corpus-set.js";
import { DEFAULTS } from "../../src/core/config.js";
import { Guard } from "../../src/guard.js";
import { CORPORA, CORPUS, RECORDED_RUNS_VERSIONS } from "./corpus-path.js";

const root = mkdtempSync(join(tmpdir(), "agentdojo-versions-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const open: GuardFactory = (config) => Guard.open({ config, workspaceDir: mkdtempSync(join(root, "g-")) });

describe("corpora of several benchmark versions", () => {
  it("finds each corpus in a folder of them and picks one per run's version", async () => {
    const corpora = await loadCorpora(CORPORA);
    expect(corpora.map((c) => c.version)).toEqual(["v1", "v1.1.1", "v1.2.1"]);
    expect(corpusFor(corpora, "v1")?.version).toBe("v1");
    expect(corpusFor(corpora, "v1.2")?.version).toBe("v1.2.1");
    expect(corpusFor(corpora, "v1.1")?.version).toBe("v1.1.1");
    expect(corpusFor(corpora, "v9")).toBeUndefined();
    expect((await loadCorpora(CORPUS)).map((c) => c.version)).toEqual(["v1"]);
  });
});

describe("a recorded-run pass over several pipelines and versions, malformed files among them", async () => {
  const result = await benchAgentDojo(
    { corpusDir: CORPORA, format: "trace", runsDir: RECORDED_RUNS_VERSIONS, injectionText: "goal", setting: { argumentProvenance: DEFAULTS.argumentProvenance, atTrusted: DEFAULTS.argumentProvenanceAtTrusted } },
    open,
    () => performance.now(),
  );
  const skipped = Object.fromEntries(result.skippedFiles.map((f) => [relative(RECORDED_RUNS_VERSIONS, f.path), f.reason]));

  it("finishes with a table per pipeline and version", () => {
    expect(result.sections.map((s) => s.label)).toEqual([
      "recorded runs of claude-3-5-sonnet (v1)",
      "recorded runs of claude-3-5-sonnet (v1.2, replayed against the v1.2.1 corpus)",
      "recorded runs of llama-3.3-70b (v1)",
      "recorded runs of llama-3.3-70b (v1.2, replayed against the v1.2.1 corpus)",
    ]);
    for (const s of result.sections) expect(result.table).toContain(`AgentDojo ${s.label}: argument provenance`);
  });

  it("lists every file it could not use, with the reason, and scores the rest", () => {
    expect(skipped).toEqual({
      "claude-3-5-sonnet/banking/user_task_0/none/none.json": "no user message",
      "claude-3-5-sonnet/slack/user_task_12/none/none.json": "benchmark version v9: no corpus for it (have v1, v1.1.1, v1.2.1)",
      "claude-3-5-sonnet/travel/user_task_0/none/none.json": expect.stringMatching(/^not JSON/u) as unknown,
      "claude-3-5-sonnet/workspace/notes.txt": "not <pipeline>/<suite>/<user_task>/<attack_type>/<injection_task or none>.json",
      "claude-3-5-sonnet/workspace/user_task_6/none/none.json": "benign run with no utility: whether the owner's task succeeded is unknown",
      "llama-3.3-70b/slack/user_task_12/none/none.json": "content names slack/user_task_13/none, its path slack/user_task_12/none",
    });
    expect(result.table).toContain("6 files skipped:");
    expect(result.run.total.attacks.pairs).toBe(4);
  });

  it("counts a run whose content says pipeline `local` under its folder's name, with a warning", () => {
    expect(result.warnings).toEqual([expect.stringContaining("content names pipeline local; counted under llama-3.3-70b, its folder") as unknown]);
    const llama = result.sections.find((s) => s.label === "recorded runs of llama-3.3-70b (v1)");
    expect(llama?.run.total.attacks.pairs).toBe(1);
  });

  it("scores an attacked run that has no utility (only its security matters)", () => {
    const claude = result.sections.find((s) => s.label === "recorded runs of claude-3-5-sonnet (v1)");
    expect(claude?.run.total.attacks).toMatchObject({ pairs: 1, executedUnasked: 0, stoppedAtApproval: 1 });
  });

  it("replays a v1.2 run against v1.2.1, telling the attacker's calls by its values: the owner's own e-mail is the owner's, the deletion of the attacker's e-mail is the attacker's", () => {
    const calls = result.run.suites.flatMap((s) => s.attacks).find((r) => r.trace.injectionTaskId === "injection_task_8")?.calls ?? [];
    expect(calls.map((c) => `${c.origin}:${c.function}:${c.verdict}`)).toEqual([
      "user:search_files_by_filename:allow",
      "user:get_unread_emails:allow",
      "injection:send_email:confirm",
      "injection:delete_email:confirm",
      "user:send_email:confirm",
    ]);
    // A prompt for an attacker call is a stop, never an owner approval: the call does not run.
    expect(calls.filter((c) => c.origin === "injection").every((c) => !c.executed)).toBe(true);
    expect(calls.at(-1)?.executed).toBe(true);
  });

  it("counts an attacker's egress read in trace mode, and reports the function-name rule beside", () => {
    expect(result.run.total.attacks.egressExecuted).toBe(1);
    expect(result.run.total.attacks.byFunctionName).toMatchObject({ ownerCallsCounted: 1 });
    expect(result.table).toContain("by function name alone:");
    expect(result.run.total.attacks.executedUnasked).toBe(0);
  });
});
