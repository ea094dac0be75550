import { ACTION_CLASSES, type ActionClass } from "../core/action-classes.js";

/**
 * The wire and MAC form of a scope: the classes in ACTION_CLASSES order, comma-separated, or
 * `none`. There is exactly one spelling per set, so a parsed scope re-encodes to the same bytes.
 */
export const EMPTY_SCOPE_TOKEN = "none";

export function encodeScope(scope: ReadonlySet<ActionClass>): string {
  const parts = ACTION_CLASSES.filter((c) => scope.has(c));
  return parts.length === 0 ? EMPTY_SCOPE_TOKEN : parts.join(",");
}

// Every canonical spelling, by token: there are only 2^5 of them, and verification parses one per message.
const CANONICAL = new Map<string, readonly ActionClass[]>();
for (let mask = 0; mask < 1 << ACTION_CLASSES.length; mask++) {
  const classes = ACTION_CLASSES.filter((_, i) => (mask & (1 << i)) !== 0);
  CANONICAL.set(encodeScope(new Set(classes)), classes);
}

/** Parses the canonical spelling only; anything else (order, duplicates, spaces) is undefined. */
export function decodeScope(token: string): Set<ActionClass> | undefined {
  const classes = CANONICAL.get(token);
  return classes === undefined ? undefined : new Set(classes);
}

export function intersectScopes(a: ReadonlySet<ActionClass>, b: ReadonlySet<ActionClass>): Set<ActionClass> {
  return new Set(ACTION_CLASSES.filter((c) => a.has(c) && b.has(c)));
}
