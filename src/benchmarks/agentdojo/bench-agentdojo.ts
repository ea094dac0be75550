import { runCorpus, runSuite, suiteName, policyFor, totalOf, type BenchmarkRun, type GuardFactory, type SuiteRun } from "./benchmark.js";
import { CorpusError, SUITES, type SuiteName } from "./corpus.js";
import { corpusFor, loadCorpora, type VersionedCorpus } from "./corpus-set.js";
import { suiteReplays, type InjectionText } from "./corpus-replays.js";
import { recombinationReplays } from "./recombination.js";
import { readRecordedRuns, recordedReplay, type SkippedFile } from "./recorded-runs.js";
import type { ReplayTrace } from "./replay-trace.js";
import { renderTable, reportJson } from "./report.js";
import type { ArgumentProvenanceSetting } from "./tool-policy-file.js";

export interface AgentDojoBenchOptions {
  /** One exported corpus, or a folder of several (one per benchmark version). */
  readonly corpusDir: string;
  /** Default: each corpus's own `tool-policy.json`. */
  readonly policyFile?: string;
  /** `recombine`: the corpus's benign tasks, and attacks that recombine the owner's own values (recombination.ts). */
  readonly format: "corpus" | "trace" | "recombine";
  /** Recorded runs, for `format: "trace"`. */
  readonly runsDir?: string;
  readonly injectionText: InjectionText;
  readonly setting: ArgumentProvenanceSetting;
}

/** One table: a corpus version, or one pipeline's recorded runs of one benchmark version. */
export interface BenchSection {
  readonly label: string;
  readonly run: BenchmarkRun;
  readonly baseline: BenchmarkRun;
}

export interface AgentDojoBenchResult {
  /** Every section's replays together. */
  readonly run: BenchmarkRun;
  /** The same replays under the plain high-water mark (argument provenance off), for comparison. */
  readonly baseline: BenchmarkRun;
  readonly sections: readonly BenchSection[];
  /** Recorded runs read but not scored: benign runs whose task failed, attacked runs whose attack failed. */
  readonly skipped: number;
  /** Files that could not be used at all, with the reason. */
  readonly skippedFiles: readonly SkippedFile[];
  readonly warnings: readonly string[];
  readonly table: string;
  readonly json: unknown;
  readonly elapsedMs: number;
}

const OFF: ArgumentProvenanceSetting = { argumentProvenance: false, atTrusted: false };

/** Loads the corpora, policies and (for traces) the recorded runs, replays them twice, and reports. */
export async function benchAgentDojo(options: AgentDojoBenchOptions, open: GuardFactory, clock: () => number): Promise<AgentDojoBenchResult> {
  const corpora = await loadCorpora(options.corpusDir, options.policyFile);
  const started = clock();
  let sections: BenchSection[];
  let skipped = 0;
  let skippedFiles: SkippedFile[] = [];
  let warnings: string[] = [];
  if (options.format === "trace") {
    if (options.runsDir === undefined) throw new CorpusError("--format trace needs the directory of recorded runs");
    const recorded = await recordedSections(options.runsDir, corpora, open, options.setting);
    ({ sections, skipped, skippedFiles, warnings } = recorded);
  } else {
    sections = corpora.map((c) => {
      const replay = (setting: ArgumentProvenanceSetting): BenchmarkRun =>
        options.format === "corpus" ? runCorpus(c.suites, c.policy, open, { ...setting, injectionText: options.injectionText }) : recombined(c, open, setting);
      return { label: `${c.version} ${options.format === "corpus" ? "corpus" : "recombined owner values"}`, run: replay(options.setting), baseline: replay(OFF) };
    });
  }
  const elapsedMs = clock() - started;
  const run = merge(sections.map((s) => s.run));
  const baseline = merge(sections.map((s) => s.baseline));
  const replays = run.total.benign.tasks + run.total.attacks.pairs;
  const lines: string[] = [];
  for (const section of sections) {
    lines.push(
      renderTable(section.baseline, `AgentDojo ${section.label}: high-water mark only (argument provenance off)`),
      "",
      renderTable(section.run, `AgentDojo ${section.label}: ${describeSetting(options.setting)}`),
      "",
    );
  }
  if (warnings.length > 0) lines.push(`${warnings.length} warning${warnings.length === 1 ? "" : "s"}:`, ...warnings.map((w) => `  ${w}`), "");
  if (options.format === "trace") {
    lines.push(`${skippedFiles.length} file${skippedFiles.length === 1 ? "" : "s"} skipped${skippedFiles.length === 0 ? "" : ":"}`, ...skippedFiles.map((f) => `  ${f.path}: ${f.reason}`), "");
  }
  lines.push(`${replays} replays twice in ${Math.round(elapsedMs)} ms${skipped > 0 ? `; ${skipped} recorded runs not scored (task or attack did not succeed)` : ""}`);
  const json = {
    ...(reportJson(run, {
      benchmark: `agentdojo ${corpora.map((c) => c.version).join(", ")}`,
      format: options.format,
      policy: corpora.map((c) => c.policyPath),
      injectionText: options.injectionText,
      argumentProvenance: options.setting.argumentProvenance,
      argumentProvenanceAtTrusted: options.setting.atTrusted,
      skippedRecordedRuns: skipped,
      skippedFiles,
      warnings,
    }) as Record<string, unknown>),
    sections: sections.map((s) => ({ label: s.label, total: s.run.total, baseline: s.baseline.total, suites: s.run.suites.map((x) => x.score) })),
    baseline: { total: baseline.total, suites: baseline.suites.map((s) => s.score) },
  };
  return { run, baseline, sections, skipped, skippedFiles, warnings, table: lines.join("\n"), json, elapsedMs };
}

function merge(runs: readonly BenchmarkRun[]): BenchmarkRun {
  const suites = runs.flatMap((r) => r.suites);
  return { suites, total: totalOf(suites) };
}

function recombined(c: VersionedCorpus, open: GuardFactory, setting: ArgumentProvenanceSetting): BenchmarkRun {
  const suites = c.suites.map((data) => {
    const name = suiteName(data);
    const suitePolicy = policyFor(c.policy, name);
    return runSuite(name, suiteReplays(data, "goal").benign, recombinationReplays(data, suitePolicy), suitePolicy, open, setting);
  });
  return { suites, total: totalOf(suites) };
}

function describeSetting(s: ArgumentProvenanceSetting): string {
  if (!s.argumentProvenance && !s.atTrusted) return "argument provenance off";
  return `argument provenance${s.argumentProvenance ? " under taint" : ""}${s.atTrusted ? `${s.argumentProvenance ? " and" : ""} at trusted taint` : ""}`;
}

interface Group {
  readonly pipeline: string;
  readonly version: string;
  readonly corpus: VersionedCorpus;
  readonly suites: Map<SuiteName, { benign: ReplayTrace[]; attacks: ReplayTrace[] }>;
}

/**
 * Recorded runs, one table per pipeline and benchmark version, each replayed against the corpus of
 * its version. Benign runs whose task succeeded and attacked runs whose attack succeeded are scored;
 * a file that cannot be used (unreadable, malformed, a version or task no corpus has, a benign run
 * with no utility) is skipped with its reason, and the pass goes on.
 */
async function recordedSections(
  runsDir: string,
  corpora: readonly VersionedCorpus[],
  open: GuardFactory,
  setting: ArgumentProvenanceSetting,
): Promise<{ sections: BenchSection[]; skipped: number; skippedFiles: SkippedFile[]; warnings: string[] }> {
  const read = await readRecordedRuns(runsDir);
  const skippedFiles = [...read.skipped];
  const warnings = [...read.warnings];
  const groups = new Map<string, Group>();
  let skipped = 0;
  for (const file of read.runs) {
    const version = file.run.benchmark_version ?? "v1";
    const corpus = corpusFor(corpora, version);
    if (corpus === undefined) {
      skippedFiles.push({ path: file.path, reason: `benchmark version ${version}: no corpus for it (have ${corpora.map((c) => c.version).join(", ")})` });
      continue;
    }
    const name = (SUITES as readonly string[]).includes(file.run.suite_name) ? (file.run.suite_name as SuiteName) : null;
    const data = name === null ? undefined : corpus.suites.find((s) => s.suite === name);
    const policy = name === null ? undefined : corpus.policy[name];
    if (name === null || data === undefined || policy === undefined) {
      skippedFiles.push({ path: file.path, reason: `suite ${file.run.suite_name}: not in the ${corpus.version} corpus or its policy` });
      continue;
    }
    const benign = file.run.injection_task_id === null;
    if (benign && (file.run.utility === null || file.run.utility === undefined)) {
      skippedFiles.push({ path: file.path, reason: "benign run with no utility: whether the owner's task succeeded is unknown" });
      continue;
    }
    if (benign ? file.run.utility !== true : !file.run.security) {
      skipped++;
      continue;
    }
    let trace: ReplayTrace;
    try {
      trace = recordedReplay(file.run, data, policy, file.pipeline);
    } catch (error) {
      if (!(error instanceof CorpusError)) throw error;
      skippedFiles.push({ path: file.path, reason: error.message.replace(/^[^:]*: /u, "") });
      continue;
    }
    const key = `${file.pipeline}\u0000${version}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { pipeline: file.pipeline, version, corpus, suites: new Map() };
      groups.set(key, group);
    }
    const entry = group.suites.get(name) ?? { benign: [], attacks: [] };
    group.suites.set(name, entry);
    (benign ? entry.benign : entry.attacks).push(trace);
  }
  const order = (name: string): number => (SUITES as readonly string[]).indexOf(name);
  const sections = [...groups.values()]
    .sort((a, b) => a.pipeline.localeCompare(b.pipeline) || a.version.localeCompare(b.version))
    .map((g) => {
      const names = [...g.suites.keys()].sort((a, b) => order(a) - order(b));
      const replay = (s: ArgumentProvenanceSetting): BenchmarkRun => {
        const suites: SuiteRun[] = names.map((n) => {
          const e = g.suites.get(n) ?? { benign: [], attacks: [] };
          return runSuite(n, e.benign, e.attacks, policyFor(g.corpus.policy, n), open, s);
        });
        return { suites, total: totalOf(suites) };
      };
      const label = `recorded runs of ${g.pipeline} (${g.version}${g.corpus.version === g.version ? "" : `, replayed against the ${g.corpus.version} corpus`})`;
      return { label, run: replay(setting), baseline: replay(OFF) };
    });
  return { sections, skipped, skippedFiles, warnings };
}
