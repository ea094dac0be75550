/**
 * Rendering text for the owner's eyes. Staged writes, paths, tool names and error messages come
 * from the agent's context, which an attacker can write into; on a terminal or in a chat an
 * escape sequence can erase or recolour a line, a carriage return can overwrite one, and a bidi
 * override can make `txt.exe` read as `exe.txt`. So every such character is shown as a visible
 * escape (`\x1b`, `\r`, `\u202e`) instead of being sent raw. Backslashes are left alone: the
 * escapes make nothing invisible, and code and Windows paths stay readable. The exact bytes stay
 * available where the owner asks for them (`--raw`, `--json`).
 */

/**
 * C0 controls and DEL, C1 controls, bidi embeddings, overrides, isolates and marks, zero-width
 * and other invisible format characters, the line and paragraph separators, the byte order mark,
 * interlinear annotation and object replacement anchors, and lone surrogates.
 */
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const NAMED: ReadonlyMap<string, string> = new Map([
  ["\t", "\\t"],
  ["\n", "\\n"],
  ["\r", "\\r"],
]);

function escapeChar(ch: string): string {
  const named = NAMED.get(ch);
  if (named !== undefined) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** One line of text: every unsafe character, newlines and tabs too, as a visible escape. */
export function displayText(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** Several lines (file content, a multi-line reason): newlines and tabs kept, everything else escaped. */
export function displayBlock(text: string): string {
  return text.replace(UNSAFE, (ch) => (ch === "\n" || ch === "\t" ? ch : escapeChar(ch)));
}

/** True when `displayText` would change nothing. */
export function isDisplaySafe(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const unsafe = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return !unsafe;
}

/**
 * JSON for a terminal: the same value as `JSON.stringify` gives, with the characters it leaves raw
 * (C1 controls, bidi and invisible format characters, line separators) written as `\uXXXX`
 * escapes, which every JSON reader decodes back to the same string.
 */
export function displayJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent);
  if (json === undefined) return "undefined";
  // JSON.stringify writes no raw control character inside a string, so a raw newline here is the
  // indentation's own.
  return json.replace(UNSAFE, (ch) => (ch === "\n" ? ch : `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`));
}
