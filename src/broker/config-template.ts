/**
 * `config_file` templates: `{{ .name }}` placeholders (a dash and an underscore in a name are the same)
 * replaced by credential values quoted as YAML scalars, so a value can never add keys, end the
 * document or change the structure around it, whatever characters it holds.
 */
const PLACEHOLDER = /\{\{\s*\.([A-Za-z0-9._-]+)\s*\}\}/g;

export function templatePlaceholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
}

const normalise = (name: string): string => name.replace(/_/g, "-");

// Printable characters that a single-quoted YAML scalar carries verbatim on one line. Line breaks would
// be folded into spaces there, and control characters are not allowed at all, so any value holding one
// is written double-quoted with escapes instead.
const SINGLE_QUOTABLE = /^[\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*$/;

/** Quotes a value as a YAML flow scalar that parses back to exactly the same string. */
export function yamlQuote(value: string): string {
  if (SINGLE_QUOTABLE.test(value)) return `'${value.replace(/'/g, "''")}'`;
  let out = '"';
  for (const ch of value) {
    const cp = ch.codePointAt(0) as number;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (cp >= 0x20 && cp <= 0x7e) out += ch;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += "\\ufffd";
    else if (cp > 0xffff) out += `\\U${cp.toString(16).padStart(8, "0")}`;
    else out += `\\u${cp.toString(16).padStart(4, "0")}`;
  }
  return `${out}"`;
}

/** Renders the template; every placeholder must have a value (the config loader checks this up front). */
export function renderTemplate(template: string, values: ReadonlyMap<string, string>): string {
  const byName = new Map<string, string>();
  for (const [k, v] of values) byName.set(normalise(k), v);
  return template.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = byName.get(normalise(name));
    if (value === undefined) throw new Error(`template placeholder ${name} has no credential`);
    return yamlQuote(value);
  });
}
