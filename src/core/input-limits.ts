import { isWellFormed, toWellFormed } from "./well-formed.js";

/**
 * Bounds on data that arrives from outside (configurations, traces, tool parameters, tool
 * outputs). Everything downstream walks values recursively (schema validation, canonical JSON,
 * value provenance); a value that is too deep would end in a stack overflow somewhere else, with
 * a message that names nothing. Checked here first, iteratively, it fails with the limit named.
 */
export interface InputLimits {
  /** Nesting of arrays and objects; a scalar at the top is depth 0. */
  readonly maxDepth: number;
  /** Characters in all strings and keys together. */
  readonly maxChars: number;
  /** Arrays, objects and scalars together (also what stops a cyclic value). */
  readonly maxNodes: number;
}

export const CONFIG_LIMITS: InputLimits = Object.freeze({ maxDepth: 32, maxChars: 1024 * 1024, maxNodes: 100_000 });
export const TOOL_PARAMS_LIMITS: InputLimits = Object.freeze({ maxDepth: 64, maxChars: 4 * 1024 * 1024, maxNodes: 200_000 });
export const TOOL_OUTPUT_LIMITS: InputLimits = Object.freeze({ maxDepth: 64, maxChars: 32 * 1024 * 1024, maxNodes: 1_000_000 });
/** One trace line holds one event, whose params or output sit two levels down. */
export const TRACE_EVENT_LIMITS: InputLimits = Object.freeze({ maxDepth: 66, maxChars: 32 * 1024 * 1024, maxNodes: 1_000_000 });

export type InputLimitKind = "depth" | "size" | "nodes";

/** A value over a limit: names what it was, which limit, and the maximum. */
export class InputLimitError extends Error {
  constructor(
    readonly what: string,
    readonly limit: InputLimitKind,
    readonly max: number,
  ) {
    const words = limit === "depth" ? `nesting deeper than ${max} levels` : limit === "size" ? `more than ${max} characters of text` : `more than ${max} values`;
    super(`${what} is too large: ${words}`);
    this.name = "InputLimitError";
  }
}

export interface ShapeReport {
  /** True when some string or key holds a lone surrogate. */
  readonly illFormed: boolean;
}

/** Walks `value` without recursion and throws InputLimitError at the first limit crossed. */
export function checkInputLimits(value: unknown, limits: InputLimits, what: string): ShapeReport {
  let chars = 0;
  let nodes = 0;
  let illFormed = false;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  const text = (s: string): void => {
    chars += s.length;
    if (chars > limits.maxChars) throw new InputLimitError(what, "size", limits.maxChars);
    if (!illFormed && !isWellFormed(s)) illFormed = true;
  };
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop() as { value: unknown; depth: number };
    nodes += 1;
    if (nodes > limits.maxNodes) throw new InputLimitError(what, "nodes", limits.maxNodes);
    if (typeof v === "string") {
      text(v);
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth + 1 > limits.maxDepth) throw new InputLimitError(what, "depth", limits.maxDepth);
    if (Array.isArray(v)) {
      for (const item of v) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(v)) {
      text(key);
      stack.push({ value: (v as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
  return { illFormed };
}

/**
 * The value with every lone surrogate (in strings and keys of arrays and plain objects) replaced
 * by U+FFFD, which is what UTF-8 encoding makes of it anyway. Call only on a value that passed
 * `checkInputLimits`: the recursion is bounded by its depth limit.
 */
export function wellFormedValue(value: unknown): unknown {
  if (typeof value === "string") return toWellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedValue);
  if (value === null || typeof value !== "object") return value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  // A plain object, as the host handed it over; defineProperty keeps a "__proto__" key a key.
  const out = {} as Record<string, unknown>;
  for (const [key, item] of Object.entries(value)) {
    // defineProperty, not assignment: a key "__proto__" stays a key.
    Object.defineProperty(out, toWellFormed(key), { value: wellFormedValue(item), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Checks the limits and returns the value made well-formed (the same value when it already was). */
export function boundedWellFormed<T>(value: T, limits: InputLimits, what: string): T {
  return checkInputLimits(value, limits, what).illFormed ? (wellFormedValue(value) as T) : value;
}
