/**
 * RFC-001 action classes: what calling a tool can do. `read` has no side effect; the others do.
 * Ordered from least to most dangerous, so an unknown tool can be given the most dangerous one.
 */
export const ACTION_CLASSES = ["read", "write", "send", "exec", "trade"] as const;
export type ActionClass = (typeof ACTION_CLASSES)[number];

export function isActionClass(value: unknown): value is ActionClass {
  return typeof value === "string" && (ACTION_CLASSES as readonly string[]).includes(value);
}

export function hasSideEffect(action: ActionClass): boolean {
  return action !== "read";
}

/** Parses "read,send" (or an array) into a set of classes; throws with the offending entry. */
export function parseActionClasses(input: string | readonly string[], where = "action classes"): Set<ActionClass> {
  const parts = typeof input === "string" ? input.split(",").map((p) => p.trim()).filter((p) => p !== "") : input;
  const out = new Set<ActionClass>();
  for (const part of parts) {
    if (!isActionClass(part)) {
      throw new Error(`${where}: ${JSON.stringify(part)} is not an action class; expected one of ${ACTION_CLASSES.join(", ")}`);
    }
    out.add(part);
  }
  return out;
}
