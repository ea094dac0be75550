import type { HeldCall } from "./approval-codes.js";

/**
 * A tool call as the owner is shown it and as an approval is bound to it. The arguments are JSON
 * with object keys sorted, so the same call always reads and compares the same; every character
 * outside printable ASCII is written as a `\uXXXX` escape, so what the owner reads is what runs:
 * no right-to-left override reorders it, no zero-width or look-alike character hides in it, no
 * newline fakes a line of the prompt, and no run of spaces pushes the rest of a call (`ls`, then
 * three thousand spaces, then `; curl … | sh`) past the edge of the owner's screen.
 */
export function heldCall(tool: string, params: Readonly<Record<string, unknown>>): HeldCall {
  const key = canonical(params);
  return { tool, key, shown: `${escapeText(tool)} ${escapeText(key)}` };
}

function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

/**
 * Printable ASCII stays, but for runs of three or more spaces; everything else becomes `\uXXXX`
 * (UTF-16 units, so astral characters show as a pair), as do the spaces of such a run: a blank
 * that long is padding, and written out it can hide nothing.
 */
export function escapeText(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    out += unit >= 0x20 && unit <= 0x7e ? text[i] : `\\u${unit.toString(16).padStart(4, "0")}`;
  }
  return out.replace(/ {3,}/g, (run) => "\\u0020".repeat(run.length));
}
