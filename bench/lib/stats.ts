/** Per-call samples, order statistics and a Markdown table printer for the benches. */

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

export function printTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): void {
  console.log(`| ${headers.join(" | ")} |`);
  console.log(`| ${headers.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}

/** Microseconds per call of `fn`, `samples` times, after `warmup` calls that are not counted. */
export function sampleMicros(fn: () => void, samples: number, warmup: number): number[] {
  for (let i = 0; i < warmup; i++) fn();
  const out = new Array<number>(samples);
  for (let i = 0; i < samples; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    out[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  return out;
}

/** Milliseconds per call of `fn`, the mean of `n` calls made one after another. */
export async function meanMs(n: number, fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return (performance.now() - t) / n;
}

/** The columns of an overhead table: a path, its milliseconds per request, and what it adds to `base`. */
export const OVERHEAD_HEADERS = ["path", "ms/request", "added µs", "ratio"] as const;

/** One row of an overhead table: `ms` per request against the baseline's `base`. */
export function overheadRow(name: string, ms: number, base: number): string[] {
  return [name, ms.toFixed(3), `${((ms - base) * 1000).toFixed(0)}`, `${(ms / base).toFixed(2)}x`];
}
