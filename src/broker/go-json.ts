/**
 * JSON encoding exactly as Go's `encoding/json` (Go >= 1.22) writes it, because the reference signs the
 * Go encoding of args and env: `<`, `>` and `&` become `\u003c`, `\u003e`, `\u0026`; U+2028 and U+2029
 * are escaped; `\b` and `\f` use their short forms; other control characters are `\u00xx` in lower-case
 * hex; a lone surrogate (invalid UTF-8 once Go sees it) becomes `\ufffd`. `JSON.stringify` differs on
 * all of these, and a single differing byte fails verification.
 */
const HEX = "0123456789abcdef";

// Characters that need no escaping form one fast path: printable ASCII other than `"`, `\`, `<`, `>`,
// `&`, plus everything above U+007F except the two line separators and surrogates.
const NEEDS_ESCAPE = /["\\<>&\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

export function goJsonString(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return `"${value}"`;
  let out = '"';
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    let escaped: string | undefined;
    if (c < 0x20) {
      if (c === 0x08) escaped = "\\b";
      else if (c === 0x09) escaped = "\\t";
      else if (c === 0x0a) escaped = "\\n";
      else if (c === 0x0c) escaped = "\\f";
      else if (c === 0x0d) escaped = "\\r";
      else escaped = `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
    } else if (c === 0x22) escaped = '\\"';
    else if (c === 0x5c) escaped = "\\\\";
    else if (c === 0x3c) escaped = "\\u003c";
    else if (c === 0x3e) escaped = "\\u003e";
    else if (c === 0x26) escaped = "\\u0026";
    else if (c === 0x2028) escaped = "\\u2028";
    else if (c === 0x2029) escaped = "\\u2029";
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < value.length ? value.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      escaped = "\\ufffd";
    } else if (c >= 0xdc00 && c <= 0xdfff) escaped = "\\ufffd";
    if (escaped !== undefined) {
      out += value.slice(start, i) + escaped;
      start = i + 1;
    }
  }
  return out + value.slice(start) + '"';
}

/** Go's `json.Marshal([]string)`: a nil slice is `null`, an empty one `[]`. */
export function goJsonArgs(args: readonly string[] | null | undefined): string {
  if (args === null || args === undefined) return "null";
  let out = "[";
  for (let i = 0; i < args.length; i++) {
    if (i > 0) out += ",";
    out += goJsonString(args[i] as string);
  }
  return out + "]";
}

/** Compares strings by their UTF-8 bytes, the order Go's sort.Strings gives. */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** The reference's canonical env object: `{}` when empty or absent, else keys in byte order, no spaces. */
export function goJsonEnv(env: Readonly<Record<string, string>> | null | undefined): string {
  if (env === null || env === undefined) return "{}";
  const keys = Object.keys(env);
  if (keys.length === 0) return "{}";
  keys.sort(compareUtf8);
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (i > 0) out += ",";
    out += `${goJsonString(k)}:${goJsonString(env[k] as string)}`;
  }
  return out + "}";
}
