import { createHash } from "node:crypto";
import { canonicalJSON } from "../../ledger/canonical-json.js";
import { ToolPinStore } from "../../state/tool-pin-store.js";

/**
 * The listings whose entries a client may put before its model as text (Claude Code offers MCP
 * prompts as slash commands with their descriptions, and lists resources through a tool of its
 * own), with the field that holds the entries, the field that names one, and the fields it shows.
 */
export const LISTINGS = {
  "prompts/list": { kind: "prompts", field: "prompts", key: "name", shown: ["name", "title", "description", "arguments"] },
  "resources/list": { kind: "resources", field: "resources", key: "uri", shown: ["uri", "name", "title", "description", "mimeType"] },
  "resources/templates/list": {
    kind: "resource-templates",
    field: "resourceTemplates",
    key: "uriTemplate",
    shown: ["uriTemplate", "name", "title", "description", "mimeType"],
  },
} as const;

export type ListingMethod = keyof typeof LISTINGS;
export type ListingKind = (typeof LISTINGS)[ListingMethod]["kind"];
export const LISTING_KINDS: readonly ListingKind[] = Object.values(LISTINGS).map((l) => l.kind);

/** A server's listing pins, one store per listing (`<server>.<kind>.json`); `onCorrupt` hears of a pin file set aside. */
export function listingPinStores(workspaceDir: string, server: string, onCorrupt?: (kind: ListingKind, detail: string, movedTo: string) => void): Record<ListingKind, ToolPinStore> {
  const store = (kind: ListingKind) => new ToolPinStore(workspaceDir, server, onCorrupt === undefined ? undefined : (detail, movedTo) => onCorrupt(kind, detail, movedTo), kind);
  return { prompts: store("prompts"), resources: store("resources"), "resource-templates": store("resource-templates") };
}

export function isListingMethod(method: string): method is ListingMethod {
  return Object.hasOwn(LISTINGS, method);
}

/** One listed entry as the pin store keeps it: the shown fields, and the SHA-256 of their RFC 8785 form. */
export interface ListedEntry {
  readonly name: string;
  readonly digest: string;
  readonly definition: Readonly<Record<string, unknown>>;
}

/**
 * The entries of a listing result, or null when the result is not one (no array where the entries
 * go). Entries without a string key are returned apart: they name nothing the pins could hold.
 */
export function listedEntries(method: ListingMethod, result: unknown): { entries: ListedEntry[]; unnamed: unknown[] } | null {
  const { field, key, shown } = LISTINGS[method];
  if (result === null || typeof result !== "object" || Array.isArray(result)) return null;
  const list = (result as Record<string, unknown>)[field];
  if (!Array.isArray(list)) return null;
  const entries: ListedEntry[] = [];
  const unnamed: unknown[] = [];
  for (const entry of list) {
    const pinned = pinnedForm(entry, key, shown);
    if (pinned === null) unnamed.push(entry);
    else entries.push(pinned);
  }
  return { entries, unnamed };
}

/**
 * The named entry's shown fields, and their digest; null when the entry has no non-empty string
 * under `key`. Tool definitions are pinned the same way, with the fields a tool shows.
 */
export function pinnedForm(entry: unknown, key: string, shown: readonly string[]): ListedEntry | null {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return null;
  const record = entry as Record<string, unknown>;
  const name = record[key];
  if (typeof name !== "string" || name === "") return null;
  const definition: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const field of shown) if (Object.hasOwn(record, field) && record[field] !== undefined) definition[field] = record[field];
  let text: string;
  try {
    text = canonicalJSON(definition);
  } catch {
    // Not representable canonically (a lone surrogate): the plain serialisation still changes with any change.
    text = JSON.stringify(definition);
  }
  return { name, digest: createHash("sha256").update(text, "utf8").digest("hex"), definition };
}

/**
 * The status messages of tasks in a `tasks/get`, `tasks/cancel` or `tasks/list` result, or a
 * `notifications/tasks/status`, each with its task's id: the server's words about a call, which a
 * client may show its model.
 */
export function taskStatusMessages(value: unknown): { taskId: string | null; message: string }[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
  const listed = (value as { tasks?: unknown }).tasks;
  const found: { taskId: string | null; message: string }[] = [];
  for (const task of Array.isArray(listed) ? [value, ...(listed as unknown[])] : [value]) {
    if (task === null || typeof task !== "object") continue;
    const { taskId, statusMessage } = task as { taskId?: unknown; statusMessage?: unknown };
    if (typeof statusMessage === "string" && statusMessage !== "") found.push({ taskId: typeof taskId === "string" ? taskId : null, message: statusMessage });
  }
  return found;
}
