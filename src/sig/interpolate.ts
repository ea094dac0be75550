/**
 * Replaces `{{name}}` (spaces inside the braces allowed) with `data[name]` in one pass. Inserted
 * values are never scanned again, so data cannot smuggle in placeholders of its own; a
 * placeholder with no value is left as written so the gap is visible.
 */
export function interpolate(template: string, data: Readonly<Record<string, string | number | boolean>>): string {
  return template.replace(/\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(data, name) ? String(data[name]) : whole,
  );
}
