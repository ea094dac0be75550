/**
 * Sizes as the reference's YAML writes them: `512KB`, `1MB`, `2GB` (case-insensitive, binary
 * multiples), `100B`, or a plain number of bytes. Undefined when the text is not a size.
 */
const MULTIPLIER: Record<string, number> = { "": 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3 };

export function parseByteSize(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  if (m === null) return undefined;
  const mult = MULTIPLIER[(m[2] as string).toLowerCase()];
  if (mult === undefined) return undefined;
  const bytes = Math.floor(Number(m[1]) * mult);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}
