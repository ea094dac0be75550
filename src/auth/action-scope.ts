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

/** A scope no one can change: the parsed scopes are shared between every envelope that carries them. */
class FixedScope extends Set<ActionClass> {
  constructor(classes: readonly ActionClass[]) {
    super();
    for (const c of classes) super.add(c);
  }

  override add(): this {
    throw new TypeError("a parsed scope is read-only");
  }

  override delete(): boolean {
    throw new TypeError("a parsed scope is read-only");
  }

  override clear(): void {
    throw new TypeError("a parsed scope is read-only");
  }
}

// Every canonical spelling, by token: there are only 2^5 of them, and verification parses one per message.
const CANONICAL = new Map<string, ReadonlySet<ActionClass>>();
for (let mask = 0; mask < 1 << ACTION_CLASSES.length; mask++) {
  const classes = ACTION_CLASSES.filter((_, i) => (mask & (1 << i)) !== 0);
  CANONICAL.set(encodeScope(new Set(classes)), new FixedScope(classes));
}

/**
 * Parses the canonical spelling only; anything else (order, duplicates, spaces) is undefined. The
 * set is shared and read-only (it throws on any change), so parsing allocates nothing.
 */
export function decodeScope(token: string): ReadonlySet<ActionClass> | undefined {
  return CANONICAL.get(token);
}

export function intersectScopes(a: ReadonlySet<ActionClass>, b: ReadonlySet<ActionClass>): Set<ActionClass> {
  return new Set(ACTION_CLASSES.filter((c) => a.has(c) && b.has(c)));
}
