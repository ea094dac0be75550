import { pinnedForm, type ListedEntry } from "./listed-content.js";

/** The parts of a listed tool that tell the model what it does and how to call it. */
const PINNED_FIELDS = ["name", "title", "description", "inputSchema", "outputSchema", "annotations"] as const;

/** A `tools/list` entry as a pinnable definition, or null when it is not a tool (no string name). */
export function listedDefinition(entry: unknown): ListedEntry | null {
  return pinnedForm(entry, "name", PINNED_FIELDS);
}
