import { ACTION_CLASSES, isActionClass, type ActionClass } from "../core/action-classes.js";

/**
 * The wire and MAC form of a scope: the classes in ACTION_CLASSES order, comma-separated, or
 * `none`. There is exactly one spelling per set, so a parsed scope re-encodes to the same bytes.
 */
export const EMPTY_SCOPE_TOKEN = "none";

export function encodeScope(scope: ReadonlySet<ActionClass>): string {
  const parts = ACTION_CLASSES.filter((c) => scope.has(c));
  return parts.length === 0 ? EMPTY_SCOPE_TOKEN : parts.join(",");
}

/** Parses the canonical spelling only; anything else (order, duplicates, spaces) is undefined. */
export function decodeScope(token: string): Set<ActionClass> | undefined {
  if (token === EMPTY_SCOPE_TOKEN) return new Set();
  const parts = token.split(",");
  const out = new Set<ActionClass>();
  for (const part of parts) {
    if (!isActionClass(part)) return undefined;
    out.add(part);
  }
  return encodeScope(out) === token ? out : undefined;
}

export function intersectScopes(a: ReadonlySet<ActionClass>, b: ReadonlySet<ActionClass>): Set<ActionClass> {
  return new Set(ACTION_CLASSES.filter((c) => a.has(c) && b.has(c)));
}
