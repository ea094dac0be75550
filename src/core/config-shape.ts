import { ConfigError } from "./config-error.js";
import { checkInputLimits, CONFIG_LIMITS, InputLimitError } from "./input-limits.js";

/**
 * Keys that mean something to JavaScript objects rather than to us. A configuration is keyed by
 * agent ids and tool names; one of these as a key would reach `Object.prototype` (`__proto__`
 * silently vanishes in a parsed record, `constructor` resolves to a function), so they are
 * refused wherever they appear.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Checks a raw configuration before any schema walks it: bounded size and nesting (a named
 * error, not a stack overflow) and no reserved key at any depth, each named with its path.
 */
export function checkConfigShape(input: unknown): void {
  try {
    checkInputLimits(input, CONFIG_LIMITS, "the configuration");
  } catch (error) {
    if (error instanceof InputLimitError) throw new ConfigError([{ key: "(root)", message: error.message }]);
    throw error;
  }
  const problems: { key: string; message: string }[] = [];
  const stack: Array<{ value: unknown; path: string }> = [{ value: input, path: "" }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string };
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: `${path}${path === "" ? "" : "."}${i}` }));
      continue;
    }
    for (const key of Object.keys(value)) {
      const at = `${path}${path === "" ? "" : "."}${key}`;
      if (RESERVED_KEYS.has(key)) {
        problems.push({ key: at, message: `${JSON.stringify(key)} is a reserved name and cannot be a key (an agent id, tool name or setting)` });
        continue;
      }
      stack.push({ value: (value as Record<string, unknown>)[key], path: at });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.reverse());
}

/**
 * A dictionary that inherits nothing: a lookup by an outside key finds an own entry or nothing,
 * never `Object.prototype`'s members.
 */
export function nullPrototype<V>(entries: Readonly<Record<string, V>> = {}): Record<string, V> {
  const out = Object.create(null) as Record<string, V>;
  for (const [key, value] of Object.entries(entries)) {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
