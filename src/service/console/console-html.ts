import { displayText, isDisplaySafe } from "../../core/safe-display.js";

/**
 * Everything the console shows from the agent's world (tool output, staged file content, session
 * names, ledger data, URLs) is hostile: it is HTML-escaped, and every control, bidi or invisible
 * character is shown as a marked escape (`\x1b`, `\u202e`) instead of being rendered.
 */

/** A piece of HTML that is safe to embed: built only by the functions here. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const HTML_ESCAPES: ReadonlyMap<string, string> = new Map([
  ["&", "&amp;"],
  ["<", "&lt;"],
  [">", "&gt;"],
  ['"', "&quot;"],
  ["'", "&#39;"],
]);

/** HTML text or attribute value: the five characters that can end a text run or an attribute escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES.get(ch) ?? ch);
}

/**
 * One piece of hostile text as HTML: escaped, and each unsafe character shown as its escape in a
 * marked span, so that a literal backslash in the content cannot pass for an escape. With
 * `keepNewlines` (file content, multi-line reasons) newlines and tabs stay as they are.
 */
export function showText(text: string, keepNewlines = false): Html {
  if (isDisplaySafe(text)) return new Html(escapeHtml(text));
  let out = "";
  let plain = "";
  for (const ch of text) {
    if ((keepNewlines && (ch === "\n" || ch === "\t")) || isDisplaySafe(ch)) {
      plain += ch;
      continue;
    }
    // No quotes in the markup: should this ever land in an attribute value, it cannot end it.
    out += escapeHtml(plain) + `<span class=esc>${escapeHtml(displayText(ch))}</span>`;
    plain = "";
  }
  return new Html(out + escapeHtml(plain));
}

type Part = Html | string | number | null | undefined | readonly Part[];

/**
 * A template tag for HTML: interpolated strings are escaped (and their unsafe characters marked),
 * numbers are written as numbers, Html values as they are, arrays joined.
 */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? "";
  for (const [i, part] of parts.entries()) out += render(part) + (strings[i + 1] ?? "");
  return new Html(out);
}

function render(part: Part): string {
  if (part === null || part === undefined) return "";
  if (part instanceof Html) return part.value;
  if (typeof part === "number") return String(part);
  if (typeof part === "string") return showText(part).value;
  return part.map(render).join("");
}

/**
 * Hostile text where markup cannot go: attribute values, and SVG text (where an HTML element such
 * as the escape marker's span would break out of the SVG): escaped, unsafe characters as plain escapes.
 */
export function attr(text: string): Html {
  return new Html(escapeHtml(displayText(text)));
}

/** Components of a URL path taken from outside data (an id, a session name). */
export function pathPart(text: string): string {
  return encodeURIComponent(text);
}

export interface PageOptions {
  readonly title: string;
  readonly csrfToken: string;
  readonly active: string;
  readonly body: Html;
  readonly workspace: string;
}

const NAV: readonly (readonly [string, string])[] = [
  ["/approvals", "Approvals"],
  ["/sessions", "Sessions"],
  ["/writes", "Staged writes"],
  ["/ledger", "Ledger"],
  ["/graphs", "Provenance graphs"],
];

/** The page shell: the console's own stylesheet and script, the CSRF token for the script to send. */
export function page(options: PageOptions): Html {
  const nav = NAV.map(([href, label]) => html`<a href="${href}"${options.active === href ? new Html(' class="active" aria-current="page"') : ""}>${label}</a>`);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="provenant-csrf" content="${attr(options.csrfToken)}">
<title>${options.title} · provenant console</title>
<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/console.js" defer></script>
</head>
<body>
<header><span class="brand">provenant</span><nav>${nav}</nav><span class="workspace">${options.workspace}</span></header>
<main>
<h1>${options.title}</h1>
<div id="flash" role="status" hidden></div>
${options.body}
</main>
</body>
</html>
`;
}
