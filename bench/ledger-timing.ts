/** Timing shared by the ledger benches: medians over rounds, measured in the same process. */

export interface Measurement {
  name: string;
  /** Median seconds per round. */
  median: number;
  /** Units of work per round (entries, bytes, calls), for a rate. */
  units: number;
}

export function measure(name: string, units: number, rounds: number, round: () => void): Measurement {
  round();
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    round();
    times.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  times.sort((a, b) => a - b);
  return { name, median: times[Math.floor(times.length / 2)] ?? Number.NaN, units };
}

export function rate(m: Measurement): number {
  return m.units / m.median;
}

export function printTable(title: string, unit: string, rows: readonly Measurement[], baseline: Measurement): void {
  console.log(`\n${title}`);
  console.log(`| case | median per round | ${unit}/s | ratio to ${baseline.name} |`);
  console.log("| --- | ---: | ---: | ---: |");
  for (const row of rows) {
    const ratio = rate(row) / rate(baseline);
    console.log(
      `| ${row.name} | ${formatSeconds(row.median)} | ${Math.round(rate(row)).toLocaleString("en-US")} | ${ratio.toFixed(2)} |`,
    );
  }
}

export function formatSeconds(s: number): string {
  if (s < 1e-3) return `${(s * 1e6).toFixed(1)} µs`;
  if (s < 1) return `${(s * 1e3).toFixed(2)} ms`;
  return `${s.toFixed(2)} s`;
}
