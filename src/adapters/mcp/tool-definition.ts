import { createHash } from "node:crypto";
import { canonicalJSON } from "../../ledger/canonical-json.js";

/** The parts of a listed tool that tell the model what it does and how to call it. */
const PINNED_FIELDS = ["name", "title", "description", "inputSchema", "outputSchema", "annotations"] as const;

export interface ListedDefinition {
  readonly name: string;
  /** SHA-256 of the RFC 8785 form of the pinned fields: equal definitions, equal digests. */
  readonly digest: string;
  readonly definition: Readonly<Record<string, unknown>>;
}

/** A `tools/list` entry as a pinnable definition, or null when it is not a tool (no string name). */
export function listedDefinition(entry: unknown): ListedDefinition | null {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return null;
  const tool = entry as Record<string, unknown>;
  if (typeof tool.name !== "string" || tool.name === "") return null;
  const definition: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const field of PINNED_FIELDS) if (Object.hasOwn(tool, field) && tool[field] !== undefined) definition[field] = tool[field];
  let text: string;
  try {
    text = canonicalJSON(definition);
  } catch {
    // Not representable canonically (a lone surrogate): the plain serialisation still changes with any change.
    text = JSON.stringify(definition);
  }
  return { name: tool.name, digest: createHash("sha256").update(text, "utf8").digest("hex"), definition };
}
