/** Order statistics and a Markdown table printer for the benches. */

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
