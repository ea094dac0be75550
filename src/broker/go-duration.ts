/**
 * Go's duration syntax (`time.ParseDuration`), which the reference's YAML uses: a sequence of decimal
 * numbers with units ns, us/µs, ms, s, m, h, such as `300s`, `1h30m`, `1.5s`; a bare `0` is zero.
 * Returns milliseconds; undefined when the text is not a duration. Negative durations are refused
 * because no setting here has a meaning for one.
 */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, "μs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

export function parseGoDuration(text: string): number | undefined {
  const s = text.trim().replace(/^\+/, "");
  if (s === "0") return 0;
  if (s === "") return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const m = PART.exec(s);
    if (m === null) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  }
  return Number.isFinite(total) ? total : undefined;
}
