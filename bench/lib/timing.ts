/** Timing shared by the ledger benches: medians over rounds, measured in the same process. */

export interface Measurement {
  name: string;
  /** Median seconds per round. */
  median: number;
  /** Units of work per round (entries, bytes, calls), for a rate. */
  units: number;
  /** From interleaved(): median over rounds of (baseline time / this time) in the same round. */
  ratio?: number;
}

/** Times `round` alone: one warm-up, then the median of `rounds`. */
export function measure(name: string, units: number, rounds: number, round: () => void): Measurement {
  round();
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    round();
    times.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  return { name, median: median(times), units };
}

export interface BenchCase {
  name: string;
  units: number;
  run: () => void;
}

/**
 * Runs the cases in turn, round after round (after one warm-up round), so a busy machine slows them
 * alike; the first case is the baseline every ratio is taken against.
 */
export function interleaved(cases: readonly BenchCase[], rounds: number): Measurement[] {
  const times: number[][] = cases.map(() => []);
  for (let r = -1; r < rounds; r++) {
    cases.forEach((c, k) => {
      const start = process.hrtime.bigint();
      c.run();
      if (r >= 0) times[k]?.push(Number(process.hrtime.bigint() - start) / 1e9);
    });
  }
  const base = times[0] ?? [];
  return cases.map((c, k) => {
    const own = times[k] ?? [];
    return { name: c.name, units: c.units, median: median(own), ratio: median(own.map((t, r) => (base[r] ?? Number.NaN) / t)) };
  });
}

export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export function rate(m: Measurement): number {
  return m.units / m.median;
}

/** Ratios are the rows' own (from interleaved) or, given a baseline, rates against it. */
export function printTable(title: string, unit: string, rows: readonly Measurement[], baseline?: Measurement): void {
  console.log(`\n${title}`);
  console.log(`| case | median per round | ${unit}/s | ratio to ${(baseline ?? rows[0])?.name ?? "baseline"} |`);
  console.log("| --- | ---: | ---: | ---: |");
  for (const row of rows) {
    const ratio = baseline === undefined ? (row.ratio ?? Number.NaN) : rate(row) / rate(baseline);
    console.log(`| ${row.name} | ${formatSeconds(row.median)} | ${Math.round(rate(row)).toLocaleString("en-US")} | ${ratio.toFixed(2)} |`);
  }
}

export function formatSeconds(s: number): string {
  if (s < 1e-3) return `${(s * 1e6).toFixed(1)} µs`;
  if (s < 1) return `${(s * 1e3).toFixed(2)} ms`;
  return `${s.toFixed(2)} s`;
}
