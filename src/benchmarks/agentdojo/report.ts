import type { BenchmarkRun, SuiteRun } from "./benchmark.js";
import type { TraceResult } from "./replay-runner.js";
import type { SuiteScore } from "./scoring.js";

/** The report as a fixed-width table: one row per suite and a total. */
export function renderTable(run: BenchmarkRun, title: string): string {
  const header = [
    "suite",
    "benign",
    "no-approval",
    "approvals/task",
    "pairs",
    "w/ side effect",
    "executed unasked",
    "stopped at prompt",
    "refused",
    "egress reads run",
  ];
  const row = (s: SuiteScore): string[] => [
    s.suite,
    String(s.benign.tasks),
    `${s.benign.completedUnasked}/${s.benign.tasks}`,
    s.benign.approvalsPerTask.toFixed(2),
    String(s.attacks.pairs),
    String(s.attacks.withSideEffect),
    s.attacks.executedAtTrustedTaint > 0
      ? `${s.attacks.executedUnasked} (${s.attacks.executedAtTrustedTaint} at trusted taint)`
      : String(s.attacks.executedUnasked),
    String(s.attacks.stoppedAtApproval),
    String(s.attacks.blocked),
    String(s.attacks.egressExecuted),
  ];
  const rows = [header, ...run.suites.map((s) => row(s.score)), row(run.total)];
  const widths = header.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]): string => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ");
  const out = [title, line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1, -1).map(line), widths.map((w) => "-".repeat(w)).join("  "), line(rows.at(-1) ?? [])];
  const byName = run.total.attacks.byFunctionName;
  if (byName !== undefined) {
    out.push(
      "",
      `attacker calls told by their values (above); by function name alone: ${byName.executedUnasked} executed unasked, ${byName.stoppedAtApproval} stopped at prompt ` +
        `(it counts ${byName.ownerCallsCounted} owner call${byName.ownerCallsCounted === 1 ? "" : "s"} as the attacker's and misses ${byName.attackerCallsMissed} attacker call${byName.attackerCallsMissed === 1 ? "" : "s"})`,
    );
  }
  const findings = Object.entries(run.total.attacks.promptFindings).sort((a, b) => b[1] - a[1]);
  if (findings.length > 0) {
    out.push("", "what the approval prompts for attacker calls cite:");
    for (const [finding, count] of findings) out.push(`  ${String(count).padStart(5)}  ${finding}`);
  }
  return out.join("\n");
}

/** The JSON report: totals, per-suite figures, and every replayed call behind them. */
export function reportJson(run: BenchmarkRun, meta: Readonly<Record<string, unknown>>): unknown {
  return {
    ...meta,
    total: run.total,
    suites: run.suites.map((s: SuiteRun) => ({
      ...s.score,
      benignRuns: s.benign.map(traceJson),
      attackRuns: s.attacks.map(traceJson),
    })),
  };
}

function traceJson(r: TraceResult): unknown {
  return {
    userTask: r.trace.userTaskId,
    injectionTask: r.trace.injectionTaskId,
    ...(r.trace.recorded === undefined ? {} : { recorded: r.trace.recorded }),
    calls: r.calls.map((c) => ({
      id: c.id,
      function: c.function,
      origin: c.origin,
      ...(c.originByFunctionName === undefined ? {} : { originByFunctionName: c.originByFunctionName }),
      args: c.args,
      action: c.action,
      verdict: c.verdict,
      taint: c.taint,
      rule: c.rule,
      reason: c.reason,
      provenance: c.provenance,
      executed: c.executed,
    })),
  };
}
