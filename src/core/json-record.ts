/**
 * A JSON object as a parser gives it: not null, not an array. Its keys and values are still the
 * caller's to check (a prototype-less object and a class instance pass alike).
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
