/**
 * sig's template engines and the placeholder syntaxes each one recognises. Verification reports
 * the placeholders found in the signed text so a reader can see where runtime data goes in.
 */
export const TEMPLATE_ENGINES = {
  jinja: [/\{\{.*?\}\}/g, /\{%.*?%\}/g, /\{#.*?#\}/g],
  mustache: [/\{\{\{.*?\}\}\}/g, /\{\{[#/^>]?.*?\}\}/g],
  handlebars: [/\{\{\{.*?\}\}\}/g, /\{\{[#/^>~]?.*?\}\}/g],
  jsx: [/\{[^}]+\}/g],
  "js-template": [/\$\{[^}]+\}/g],
  bash: [/\$\{[^}]+\}/g, /\$[A-Z_][A-Z0-9_]*/g],
  mlld: [/@[a-zA-Z]\w*(?:\.[a-zA-Z]\w*)*/g, /<[a-zA-Z][\w./-]*>/g],
  claude: [/\{\{[a-zA-Z_]\w*\}\}/g, /@[a-zA-Z][\w/-]*/g],
  erb: [/<%=?-?\s.*?-?%>/g],
  "go-template": [/\{\{.*?\}\}/g],
  "python-fstring": [/\{[^}]+\}/g],
} as const satisfies Record<string, readonly RegExp[]>;

export type TemplateEngine = keyof typeof TEMPLATE_ENGINES;

export const TEMPLATE_ENGINE_NAMES = Object.keys(TEMPLATE_ENGINES) as TemplateEngine[];

export function isTemplateEngine(value: unknown): value is TemplateEngine {
  return typeof value === "string" && Object.hasOwn(TEMPLATE_ENGINES, value);
}

export interface CustomPlaceholderPattern {
  readonly name: string;
  readonly patterns: readonly string[];
}

/** Distinct placeholders in first-seen order, engine patterns before custom ones (as sig does). */
export function extractPlaceholders(
  content: string,
  engines: readonly string[],
  custom: readonly CustomPlaceholderPattern[] = [],
): string[] {
  const found = new Set<string>();
  const collect = (pattern: RegExp): void => {
    for (const match of content.matchAll(new RegExp(pattern.source, "g"))) {
      // An empty match would tell the reader nothing; sig's loop skips past it the same way.
      if (match[0] !== "") found.add(match[0]);
    }
  };
  for (const engine of engines) {
    if (!isTemplateEngine(engine)) continue;
    for (const pattern of TEMPLATE_ENGINES[engine]) collect(pattern);
  }
  for (const entry of custom) {
    for (const source of entry.patterns) {
      let pattern: RegExp;
      try {
        pattern = new RegExp(source, "g");
      } catch {
        continue;
      }
      collect(pattern);
    }
  }
  return [...found];
}
