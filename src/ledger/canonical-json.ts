/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * Numbers: ECMAScript Number-to-String is exactly the serialization RFC 8785 section 3.2.2.3
 * mandates, so `String(n)` is used as is (it already prints -0 as "0").
 * Strings: JSON.stringify's escaping is the one RFC 8785 section 3.2.2.2 mandates, except that it
 * escapes lone surrogates as `\udXXX` where JCS requires rejecting them, so those are refused first.
 * Object keys: sorted by UTF-16 code units, which is what Array.prototype.sort compares by default.
 */

export class CanonicalJSONError extends Error {
  override readonly name = "CanonicalJSONError";
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`canonical JSON: ${reason} at ${path}`);
  }
}

/** Deep enough for any audit record; a cycle hits it instead of overflowing the stack. */
const MAX_DEPTH = 512;

// A string needs JSON.stringify only when it holds a quote, backslash, control or surrogate unit.
const NEEDS_ESCAPE_OR_CHECK = /["\\\u0000-\u001f\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function canonicalJSON(value: unknown): string {
  return serialize(value, "$", 0);
}

function serialize(value: unknown, path: string, depth: number): string {
  switch (typeof value) {
    case "string":
      return serializeString(value, path);
    case "number":
      return serializeNumber(value, path);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      if (depth >= MAX_DEPTH) throw new CanonicalJSONError(path, `nesting deeper than ${MAX_DEPTH} (or a cycle)`);
      if (Array.isArray(value)) return serializeArray(value, path, depth + 1);
      return serializeObject(value, path, depth + 1);
    default:
      throw new CanonicalJSONError(path, `${typeof value} is not a JSON value`);
  }
}

function serializeString(s: string, path: string): string {
  if (!NEEDS_ESCAPE_OR_CHECK.test(s)) return `"${s}"`;
  if (LONE_SURROGATE.test(s)) throw new CanonicalJSONError(path, "lone surrogate in string (not valid Unicode)");
  return JSON.stringify(s);
}

function serializeNumber(n: number, path: string): string {
  if (Number.isFinite(n)) return String(n);
  throw new CanonicalJSONError(path, `${String(n)} is not a JSON number`);
}

function serializeArray(items: readonly unknown[], path: string, depth: number): string {
  let out = "[";
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ",";
    const item = items[i];
    if (item === undefined) throw new CanonicalJSONError(`${path}[${i}]`, "undefined is not a JSON value");
    out += serialize(item, `${path}[${i}]`, depth);
  }
  return out + "]";
}

function serializeObject(value: object, path: string, depth: number): string {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    const toJSON: unknown = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return serialize((toJSON as () => unknown).call(value), path, depth);
    throw new CanonicalJSONError(path, `${describe(value)} is not a plain JSON object`);
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = "{";
  let first = true;
  for (const key of keys) {
    const member = record[key];
    // Optional properties left undefined are absent, as in JSON.stringify; the record is unchanged.
    if (member === undefined) continue;
    if (!first) out += ",";
    first = false;
    const memberPath = `${path}.${key}`;
    out += serializeString(key, memberPath) + ":" + serialize(member, memberPath, depth);
  }
  return out + "}";
}

function describe(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? `a ${name}` : "an exotic object";
}
