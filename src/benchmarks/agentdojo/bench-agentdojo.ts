import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runCorpus, runSuite, suiteName, policyFor, totalOf, type BenchmarkRun, type GuardFactory, type SuiteRun } from "./benchmark.js";
import { CorpusError, SUITES, loadCorpus, type SuiteData } from "./corpus.js";
import { suiteReplays, type InjectionText } from "./corpus-replays.js";
import { recombinationReplays } from "./recombination.js";
import { readRecordedRuns, recordedReplay, type RecordedRun } from "./recorded-runs.js";
import type { ReplayTrace } from "./replay-trace.js";
import { renderTable, reportJson } from "./report.js";
import { parseToolPolicy, type ArgumentProvenanceSetting } from "./tool-policy-file.js";

export interface AgentDojoBenchOptions {
  readonly corpusDir: string;
  /** Default: `<corpusDir>/tool-policy.json`. */
  readonly policyFile?: string;
  /** `recombine`: the corpus's benign tasks, and attacks that recombine the owner's own values (recombination.ts). */
  readonly format: "corpus" | "trace" | "recombine";
  /** Recorded runs, for `format: "trace"`. */
  readonly runsDir?: string;
  readonly injectionText: InjectionText;
  readonly setting: ArgumentProvenanceSetting;
}

export interface AgentDojoBenchResult {
  readonly run: BenchmarkRun;
  /** The same replays under the plain high-water mark (argument provenance off), for comparison. */
  readonly baseline: BenchmarkRun;
  /** Recorded runs left out: benign runs whose task failed, attacked runs whose attack failed. */
  readonly skipped: number;
  readonly table: string;
  readonly json: unknown;
  readonly elapsedMs: number;
}

/** Loads the corpus, policy and (for traces) the recorded runs, replays them twice, and reports. */
export async function benchAgentDojo(options: AgentDojoBenchOptions, open: GuardFactory, clock: () => number): Promise<AgentDojoBenchResult> {
  const corpus = await loadCorpus(options.corpusDir);
  const policyPath = options.policyFile ?? join(options.corpusDir, "tool-policy.json");
  const policy = parseToolPolicy(await readText(policyPath), policyPath);
  const off: ArgumentProvenanceSetting = { argumentProvenance: false, atTrusted: false };
  const started = clock();
  let run: BenchmarkRun;
  let baseline: BenchmarkRun;
  let skipped = 0;
  if (options.format === "corpus") {
    run = runCorpus(corpus, policy, open, { ...options.setting, injectionText: options.injectionText });
    baseline = runCorpus(corpus, policy, open, { ...off, injectionText: options.injectionText });
  } else if (options.format === "recombine") {
    const replayAll = (setting: ArgumentProvenanceSetting): BenchmarkRun => {
      const suites = corpus.map((data) => {
        const name = suiteName(data);
        const suitePolicy = policyFor(policy, name);
        return runSuite(name, suiteReplays(data, "goal").benign, recombinationReplays(data, suitePolicy), suitePolicy, open, setting);
      });
      return { suites, total: totalOf(suites) };
    };
    run = replayAll(options.setting);
    baseline = replayAll(off);
  } else {
    if (options.runsDir === undefined) throw new CorpusError("--format trace needs the directory of recorded runs");
    const runs = await readRecordedRuns(options.runsDir);
    const selected = selectRecorded(runs, corpus, policy);
    skipped = selected.skipped;
    const replayAll = (setting: ArgumentProvenanceSetting): BenchmarkRun => {
      const suites: SuiteRun[] = selected.suites.map((s) => runSuite(s.name, s.benign, s.attacks, policyFor(policy, s.name), open, setting));
      return { suites, total: totalOf(suites) };
    };
    run = replayAll(options.setting);
    baseline = replayAll(off);
  }
  const elapsedMs = clock() - started;
  const replays = run.total.benign.tasks + run.total.attacks.pairs;
  const what = options.format === "corpus" ? "corpus" : options.format === "recombine" ? "recombined owner values" : "recorded runs";
  const title = (label: string): string => `AgentDojo ${corpusVersion(corpus)} ${what}: ${label}`;
  const table = [
    renderTable(baseline, title("high-water mark only (argument provenance off)")),
    "",
    renderTable(run, title(describeSetting(options.setting))),
    "",
    `${replays} replays twice in ${Math.round(elapsedMs)} ms${skipped > 0 ? `; ${skipped} recorded runs skipped (task or attack did not succeed)` : ""}`,
  ].join("\n");
  const json = {
    ...(reportJson(run, {
      benchmark: `agentdojo-${corpusVersion(corpus)}`,
      format: options.format,
      policy: policyPath,
      injectionText: options.injectionText,
      argumentProvenance: options.setting.argumentProvenance,
      argumentProvenanceAtTrusted: options.setting.atTrusted,
      skippedRecordedRuns: skipped,
    }) as Record<string, unknown>),
    baseline: { total: baseline.total, suites: baseline.suites.map((s) => s.score) },
  };
  return { run, baseline, skipped, table, json, elapsedMs };
}

/** The benchmark version the corpus's suite files name (`v1` when they name none, as the v1 export does not). */
function corpusVersion(corpus: readonly SuiteData[]): string {
  return corpus.find((s) => s.benchmark_version !== undefined)?.benchmark_version ?? "v1";
}

function describeSetting(s: ArgumentProvenanceSetting): string {
  if (!s.argumentProvenance && !s.atTrusted) return "argument provenance off";
  return `argument provenance${s.argumentProvenance ? " under taint" : ""}${s.atTrusted ? `${s.argumentProvenance ? " and" : ""} at trusted taint` : ""}`;
}

interface SelectedSuite {
  readonly name: ReturnType<typeof suiteName>;
  readonly benign: ReplayTrace[];
  readonly attacks: ReplayTrace[];
}

/** Benign runs whose task succeeded and attacked runs whose attack succeeded, grouped by suite. */
function selectRecorded(
  runs: readonly RecordedRun[],
  corpus: Awaited<ReturnType<typeof loadCorpus>>,
  policy: ReturnType<typeof parseToolPolicy>,
): { suites: SelectedSuite[]; skipped: number } {
  const bySuite = new Map<string, SelectedSuite>();
  let skipped = 0;
  for (const run of runs) {
    const name = suiteName(run.suite_name);
    const data = corpus.find((s) => s.suite === name);
    if (data === undefined) throw new CorpusError(`recorded run for suite ${name}, which the corpus does not have`);
    const benign = run.injection_task_id === null;
    if (benign ? !run.utility : !run.security) {
      skipped++;
      continue;
    }
    let entry = bySuite.get(name);
    if (entry === undefined) {
      entry = { name, benign: [], attacks: [] };
      bySuite.set(name, entry);
    }
    (benign ? entry.benign : entry.attacks).push(recordedReplay(run, data, policyFor(policy, name)));
  }
  const order = (name: string): number => (SUITES as readonly string[]).indexOf(name);
  return { suites: [...bySuite.values()].sort((a, b) => order(a.name) - order(b.name)), skipped };
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new CorpusError(`${path}: ${(error as Error).message}`);
  }
}
