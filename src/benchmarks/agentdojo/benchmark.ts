import { CorpusError, SUITES, type SuiteData, type SuiteName } from "./corpus.js";
import { suiteReplays, type InjectionText } from "./corpus-replays.js";
import { runTrace, type ReplayGuard, type TraceResult } from "./replay-runner.js";
import type { ReplayTrace } from "./replay-trace.js";
import { scoreAttacks, scoreBenign, type SuiteScore } from "./scoring.js";
import { guardConfigFor, type ArgumentProvenanceSetting, type SuitePolicy, type ToolPolicyFile } from "./tool-policy-file.js";

/** Opens a fresh guard for one suite's configuration. */
export type GuardFactory = (config: Record<string, unknown>) => ReplayGuard;

export interface BenchmarkOptions extends ArgumentProvenanceSetting {
  readonly injectionText: InjectionText;
}

export interface SuiteRun {
  readonly score: SuiteScore;
  readonly benign: readonly TraceResult[];
  readonly attacks: readonly TraceResult[];
}

export interface BenchmarkRun {
  readonly suites: readonly SuiteRun[];
  readonly total: SuiteScore;
}

export function suiteName(suite: SuiteData | string): SuiteName {
  const name = typeof suite === "string" ? suite : suite.suite;
  if (!(SUITES as readonly string[]).includes(name)) throw new CorpusError(`${name}: not an AgentDojo v1 suite (${SUITES.join(", ")})`);
  return name as SuiteName;
}

export function policyFor(policy: ToolPolicyFile, suite: SuiteName): SuitePolicy {
  const entry = policy[suite];
  if (entry === undefined) throw new CorpusError(`tool policy: no entry for suite ${suite}`);
  return entry;
}

/** Runs every benign task and every attack pair of every suite through a guard per suite. */
export function runCorpus(corpus: readonly SuiteData[], policy: ToolPolicyFile, open: GuardFactory, options: BenchmarkOptions): BenchmarkRun {
  const suites: SuiteRun[] = [];
  for (const data of corpus) {
    const name = suiteName(data);
    const suitePolicy = policyFor(policy, name);
    const unknown = data.tools.map((t) => t.name).filter((t) => suitePolicy[t] === undefined);
    if (unknown.length > 0) throw new CorpusError(`tool policy: suite ${name} does not classify ${unknown.join(", ")}`);
    const { benign, attacks } = suiteReplays(data, options.injectionText);
    suites.push(runSuite(name, benign, attacks, suitePolicy, open, options));
  }
  return { suites, total: totalOf(suites) };
}

/** Runs already-built traces of one suite (the corpus converter's or a recorded run's). */
export function runSuite(
  name: SuiteName,
  benignTraces: readonly ReplayTrace[],
  attackTraces: readonly ReplayTrace[],
  policy: SuitePolicy,
  open: GuardFactory,
  setting: ArgumentProvenanceSetting,
): SuiteRun {
  const guard = open(guardConfigFor(name, policy, setting));
  const run = (trace: ReplayTrace): TraceResult =>
    runTrace(guard, `agentdojo:${name}:${trace.userTaskId}:${trace.injectionTaskId ?? "benign"}:${trace.recorded?.pipeline ?? "corpus"}`, trace, policy);
  const benign = benignTraces.map(run);
  const attacks = attackTraces.map(run);
  return { score: { suite: name, benign: scoreBenign(benign), attacks: scoreAttacks(attacks) }, benign, attacks };
}

export function totalOf(suites: readonly SuiteRun[]): SuiteScore {
  return {
    suite: "total",
    benign: scoreBenign(suites.flatMap((s) => s.benign)),
    attacks: scoreAttacks(suites.flatMap((s) => s.attacks)),
  };
}
