import { parseAllDocuments } from "yaml";
import { yamlNestingExceeds } from "./yaml-text-bounds.js";
import { joinTokens, tokenize } from "./argument-matching.js";

/**
 * The records of a tool output that is a structure the tool serialised itself (a list of records, or
 * one record), and the rule by which an owner's sentence designates one of them: "add Bob to the
 * participants of the 'Introductory meeting' event" designates the event whose title is
 * "Introductory meeting", and with it that event's id; "the same participants as the
 * 'Introductory meeting'" designates its participants. docs/argument-provenance.md states the rule,
 * what an attacker can and cannot do through it, and its limits.
 */

/** One leaf of a record: the key it sits under (a list's items sit under the list's key) and its tokens. */
export interface RecordField {
  readonly key: string;
  readonly tokens: readonly string[];
  readonly joined: string;
}

export type StructuredRecord = readonly RecordField[];

const MAX_DEPTH = 64;

/**
 * The records of a serialised structure: each mapping item of a top-level list, or the top-level
 * mapping itself. Text that is not JSON or YAML, or a scalar, or a list of scalars, has none. Only
 * outputs the tool itself serialised may be read this way: there, text someone else wrote sits
 * inside a quoted scalar and cannot add a key; in a text file that happens to parse as YAML, a line
 * someone else wrote can (the caller decides, `structuredToolOutputs`).
 */
export function structuredRecords(output: unknown): StructuredRecord[] {
  const value = typeof output === "string" ? parseSerialised(output) : output;
  if (Array.isArray(value)) return value.filter(isMapping).map(recordFields);
  return isMapping(value) ? [recordFields(value)] : [];
}

/**
 * A serialised structure read back: JSON, or one YAML document without aliases (an alias is how a
 * small text expands) or tags outside the core schema. Anything else (several documents included),
 * or any error or warning, is undefined: the output is then not a structure. A `%YAML` directive
 * and core tags (`!!str`) are read as the yaml library reads them.
 */
export function parseSerialised(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === "" || !shallow(trimmed)) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    // not JSON: try YAML below
  }
  // Every document, so that a second one is seen and refused rather than silently left unread: the
  // records a sentence names must all agree, and one left unread could be the one that does not.
  const docs = parseAllDocuments(trimmed, { uniqueKeys: true, logLevel: "silent" });
  const doc = docs.length === 1 ? docs[0] : undefined;
  if (doc === undefined || doc.errors.length > 0 || doc.warnings.length > 0) return undefined;
  try {
    return doc.toJS({ maxAliasCount: 0 }) as unknown;
  } catch {
    return undefined;
  }
}

/** Longest text read back as a structure; a longer output designates nothing (it still vouches as text). */
const MAX_SERIALISED = 256_000;
/** Deepest nesting read back: far beyond what a tool's records need, far below what exhausts a parser. */
const MAX_NESTING = 64;

/** Whether a text is small and shallow enough to hand to a parser (a text that fails designates nothing). */
function shallow(text: string): boolean {
  return text.length <= MAX_SERIALISED && !yamlNestingExceeds(text, MAX_NESTING);
}

function isMapping(value: unknown): value is Readonly<Record<string, unknown>> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function recordFields(record: Readonly<Record<string, unknown>>): StructuredRecord {
  const out: RecordField[] = [];
  const walk = (value: unknown, key: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (typeof value === "string" || typeof value === "number" || typeof value === "bigint") {
      const tokens = tokenize(String(value));
      if (tokens.length > 0) out.push({ key, tokens, joined: joinTokens(tokens) });
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, key, depth + 1);
    } else if (isMapping(value)) {
      for (const [k, item] of Object.entries(value)) walk(item, k, depth + 1);
    }
  };
  for (const [k, item] of Object.entries(record)) walk(item, k, 1);
  return out;
}

/** The words of a name: `user_email` → user, email; `eventId` → event, id; `id_` → id. Plural `s` dropped. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/gu, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/u)
    .filter((w) => w !== "")
    .map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w));
}

/**
 * Whether a record's key holds what an argument takes: the last word of the key is the last word of
 * the argument's name (`participants` ↔ `participants`, `user_email` ↔ `email`). Never an
 * identifier: an id picks which existing object an operation changes, and an owner's sentence names
 * objects of one kind in different roles ("add the ingredients from 'recipes.docx' to my grocery
 * list" names the file read from, not the one written to), so naming a record does not designate
 * its id (docs/argument-provenance.md, refused rules).
 */
export function keyHolds(argument: string, key: string): boolean {
  const last = nameWords(argument).at(-1);
  return last !== undefined && last !== "id" && nameWords(key).at(-1) === last;
}

/**
 * Whether an owner's sentence names a field: the last word of its key occurs among the sentence's
 * words ("the same participants as", "her email"). Naming a record is not asking for what it holds:
 * "create 'Debrief' right after the 'Board meeting'" names the meeting for its time, not its people.
 */
export function fieldNamed(key: string, sentence: readonly string[]): boolean {
  const last = nameWords(key).at(-1);
  return last !== undefined && sentence.some((token) => nameWords(token).includes(last));
}
